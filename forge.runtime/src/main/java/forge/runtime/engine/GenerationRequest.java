package forge.runtime.engine;

import forge.api.sampler.SamplingParams;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One sequence to generate.
 *
 * @param id         the request's id, shown in logs and {@code /slots}
 * @param prompt     the prompt's tokens
 * @param sampling   how to choose tokens
 * @param maxTokens  the most tokens to generate; -1 means until the slot's context is full
 * @param stops      stop strings: generation ends before any of them, which are never emitted
 * @param stopTokens token ids that end generation besides the vocabulary's end-of-generation
 *                   tokens (a template's end-of-turn tokens)
 * @param ignoreEos  keep generating past end-of-generation tokens (benchmarks)
 */
public record GenerationRequest(String id, int[] prompt, SamplingParams sampling, int maxTokens, List<String> stops,
                                Set<Integer> stopTokens, boolean ignoreEos) {
    public GenerationRequest {
        Objects.requireNonNull(id);
        Objects.requireNonNull(prompt);
        if (prompt.length == 0) {
            throw new IllegalArgumentException("the prompt is empty");
        }
        Objects.requireNonNull(sampling);
        if (maxTokens < -1 || maxTokens == 0) {
            throw new IllegalArgumentException("max_tokens must be positive: " + maxTokens);
        }
        stops = List.copyOf(stops);
        stopTokens = Set.copyOf(stopTokens);
    }
}
