/**
 * An example sampler plugin: the {@code top_a} stage (top-a sampling, which llama.cpp's chain
 * does not have): drop the tokens whose probability is below {@code a} times the square of the
 * top token's. A confident distribution is cut hard, a flat one hardly at all. It needs forge.api
 * alone; copy it to start a plugin of your own (see forge.api's module documentation).
 *
 * @provides forge.api.sampler.SamplerProvider the {@code top_a} stage
 */
module com.example.topa {
    requires forge.api;

    provides forge.api.sampler.SamplerProvider with
            com.example.topa.TopAProvider;
}
