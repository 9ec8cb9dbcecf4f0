/**
 * GGUF files in pure Java, and the synthetic models ForgeLM makes with them.
 *
 * <p>{@link forge.lib.gguf.GgufReader} reads a file's header (metadata and tensor infos, never
 * the tensor data), checking every count and length against what is left of the file before it
 * allocates for it; {@link forge.lib.gguf.GgufWriter} streams a new file to disk tensor by
 * tensor. {@link forge.lib.gguf.synth.SyntheticModels} writes random-weight models of a chosen
 * architecture and shape, for tests, benchmarks and the demo model, since no trained weights can be
 * downloaded here.
 *
 * <p>A library of its own, apart from {@code forge.runtime}: the catalog reads headers with it,
 * the command line ({@code forge model synth}) and the tests of every other module write models
 * with it. It needs no native access and no services.
 */
module forge.lib.gguf {
    // Its types speak forge.api's: GgufException is a BackendException, a header's metadata a ModelMetadata.
    requires transitive forge.api;

    exports forge.lib.gguf;
    exports forge.lib.gguf.synth;
}
