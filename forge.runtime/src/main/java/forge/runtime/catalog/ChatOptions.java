package forge.runtime.catalog;

import forge.api.backend.AdapterScale;
import forge.api.sampler.SamplingParams;
import forge.runtime.engine.Speculation;
import java.util.List;
import java.util.Objects;

/**
 * A chat request's generation settings, after the HTTP layer validated them.
 *
 * @param requestId the request's id
 * @param sampling  how to choose tokens
 * @param maxTokens the most tokens to generate; -1 until the context is full
 * @param stops     the client's stop strings
 * @param ignoreEos keep generating past end-of-generation tokens
 * @param logprobs  -1 for none; else each token's log-probability with this many alternatives
 * @param speculation n-gram speculative decoding for this request; null for the engine's
 * @param adapters  the model's LoRA adapters applied, each at its scale
 */
public record ChatOptions(
        String requestId,
        SamplingParams sampling,
        int maxTokens,
        List<String> stops,
        boolean ignoreEos,
        int logprobs,
        Speculation speculation,
        List<AdapterScale> adapters) {

    public ChatOptions {
        Objects.requireNonNull(requestId);
        Objects.requireNonNull(sampling);
        stops = List.copyOf(stops);
        adapters = List.copyOf(adapters);
    }
}
