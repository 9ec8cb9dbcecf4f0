package forge.runtime.engine;

import forge.api.ForgeException;
import java.util.List;
import java.util.Objects;

/**
 * What a generation reports, in order: for a request that scores its prompt one
 * {@link PromptLogprobs}, then any number of {@link Text}, then one {@link Done} or {@link Failed}.
 */
public sealed interface GenerationEvent {

    /**
     * The prompt's log-probabilities (for {@link GenerationRequest#scorePrompt}): one entry per
     * prompt token after the first, each with its log-probability given the tokens before it and
     * the request's number of most likely alternatives. The first token has none: nothing comes
     * before it.
     */
    record PromptLogprobs(List<TokenLogprob> tokens) implements GenerationEvent {
        public PromptLogprobs {
            tokens = List.copyOf(tokens);
        }
    }

    /**
     * Newly generated text: whole characters only, with no part of a stop string.
     *
     * @param text     the text
     * @param tokens   how many tokens produced it (some tokens produce no text yet)
     * @param logprobs when the request asked for them, the tokens sampled since the last event, in
     *                 order (a token whose text is held back, half a character or the start of
     *                 what may be a stop string, comes with the event that releases it); else empty
     */
    record Text(String text, int tokens, List<TokenLogprob> logprobs) implements GenerationEvent {
        public Text {
            Objects.requireNonNull(text);
            logprobs = List.copyOf(logprobs);
        }

        /** Text without log-probabilities. */
        public Text(String text, int tokens) {
            this(text, tokens, List.of());
        }
    }

    /**
     * The generation ended normally.
     *
     * @param stopSequence the stop string that ended it ({@link FinishReason#STOP}), else empty:
     *                     Anthropic's {@code stop_sequence} names the one that matched
     */
    record Done(FinishReason reason, Timings timings, String stopSequence) implements GenerationEvent {
        public Done {
            Objects.requireNonNull(reason);
            Objects.requireNonNull(timings);
            Objects.requireNonNull(stopSequence);
        }

        /** An end that no stop string caused. */
        public Done(FinishReason reason, Timings timings) {
            this(reason, timings, "");
        }
    }

    /** The generation failed; nothing more follows. */
    record Failed(ForgeException error) implements GenerationEvent {
        public Failed {
            Objects.requireNonNull(error);
        }
    }
}
