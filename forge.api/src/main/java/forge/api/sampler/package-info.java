/**
 * Sampling parameters: what a request's temperature, top-k, penalties, logit bias and grammar
 * turn into before a backend builds its native sampler chain.
 *
 * {@snippet :
 * SamplingParams p = SamplingParams.builder().temperature(0.2f).seed(42).build();
 * try (TokenSampler s = context.sampler(p)) { ... }
 * }
 */
package forge.api.sampler;
