package forge.runtime.engine;

import forge.api.ForgeException;
import java.util.Objects;

/** What a generation reports, in order: any number of {@link Text}, then one {@link Done} or {@link Failed}. */
public sealed interface GenerationEvent {

    /**
     * Newly generated text: whole characters only, with no part of a stop string.
     *
     * @param text   the text
     * @param tokens how many tokens produced it (some tokens produce no text yet)
     */
    record Text(String text, int tokens) implements GenerationEvent {
        public Text {
            Objects.requireNonNull(text);
        }
    }

    /** The generation ended normally. */
    record Done(FinishReason reason, Timings timings) implements GenerationEvent {
        public Done {
            Objects.requireNonNull(reason);
            Objects.requireNonNull(timings);
        }
    }

    /** The generation failed; nothing more follows. */
    record Failed(ForgeException error) implements GenerationEvent {
        public Failed {
            Objects.requireNonNull(error);
        }
    }
}
