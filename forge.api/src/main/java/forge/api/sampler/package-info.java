/**
 * Sampling parameters: what a request's temperature, top-k, penalties, logit bias and grammar
 * turn into before a backend builds its native sampler chain.
 *
 * {@snippet :
 * SamplingParams p = SamplingParams.DEFAULTS.withTemperature(0.2f).withSeed(42);
 * try (TokenSampler s = context.sampler(p)) { ... }
 * }
 */
package forge.api.sampler;
