package forge.api.sampler;

/** One step of a request's sampler chain: a built-in stage or a plugin's. */
public sealed interface SamplerStep permits BuiltinStage, PluginStage {

    /** The step's name as a request's {@code samplers} gives it ({@code typ_p}, {@code loop_guard}). */
    String stageName();
}
