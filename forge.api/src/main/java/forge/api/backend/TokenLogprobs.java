package forge.api.backend;

import java.util.List;
import java.util.Objects;

/**
 * The log-probabilities behind one sampled token: its own under the model's distribution (the
 * log-softmax of the raw logits, before any sampling stage reshaped them) and the most likely
 * alternatives at the same position, most likely first.
 *
 * @param token   the sampled token and its log-probability
 * @param top     up to the requested number of most likely tokens, most likely first; it can
 *                include the sampled token
 */
public record TokenLogprobs(Candidate token, List<Candidate> top) {

    /** The most alternatives a backend is asked for: OpenAI's limit for {@code top_logprobs}. */
    public static final int MAX_TOP = 20;

    public TokenLogprobs {
        Objects.requireNonNull(token);
        top = List.copyOf(top);
        if (top.size() > MAX_TOP) {
            throw new IllegalArgumentException("at most " + MAX_TOP + " alternatives, got " + top.size());
        }
    }

    /**
     * One token and its natural-log probability.
     *
     * @param id      the token id
     * @param logprob {@code ln p}, at most 0; {@code -Infinity} for a banned or impossible token
     */
    public record Candidate(int id, float logprob) {
        public Candidate {
            if (Float.isNaN(logprob) || logprob > 0f) {
                throw new IllegalArgumentException("a log-probability is a number at most 0: " + logprob);
            }
        }
    }
}
