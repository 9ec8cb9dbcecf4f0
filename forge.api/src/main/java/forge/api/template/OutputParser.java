package forge.api.template;

import java.util.List;
import java.util.function.Supplier;

/**
 * Splits one response's text into content, reasoning and tool calls, incrementally: the engine
 * feeds it text as tokens are decoded and streams the deltas it returns. Used by one request at
 * a time.
 */
public interface OutputParser {

    /** A parser that passes all text through as content. */
    Supplier<OutputParser> PLAIN = () -> new OutputParser() {
        @Override
        public List<ChatDelta> feed(String text) {
            return text.isEmpty() ? List.of() : List.of(new ChatDelta.Content(text));
        }

        @Override
        public List<ChatDelta> finish() {
            return List.of();
        }
    };

    /** Takes the next piece of generated text; returns what can be emitted now. */
    List<ChatDelta> feed(String text);

    /** The generation ended: returns whatever was held back. */
    List<ChatDelta> finish();
}
