package forge.runtime.engine;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * A generated token as OpenAI's {@code logprobs} show it: its text, its raw bytes (a character
 * can be split across tokens, so the bytes are not always valid UTF-8 on their own), its
 * log-probability and the most likely alternatives at its position.
 *
 * @param bytes   the token's bytes, as the vocabulary renders it
 * @param logprob its natural-log probability under the model
 * @param top     the most likely tokens at this position, most likely first; each has no {@code top} of its own
 */
public record TokenLogprob(byte[] bytes, float logprob, List<TokenLogprob> top) {
    public TokenLogprob {
        Objects.requireNonNull(bytes);
        top = List.copyOf(top);
    }

    /** The bytes decoded as UTF-8, a split character as U+FFFD (OpenAI's {@code token}). */
    public String token() {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
