package forge.api.template;

import java.util.Objects;

/** A piece of parsed output: content, reasoning, or part of a tool call. */
public sealed interface ChatDelta {

    /** Visible answer text. */
    record Content(String text) implements ChatDelta {
        public Content {
            Objects.requireNonNull(text);
        }
    }

    /** Reasoning text (between {@code <think>} and {@code </think>} and the like). */
    record Reasoning(String text) implements ChatDelta {
        public Reasoning {
            Objects.requireNonNull(text);
        }
    }

    /**
     * Part of a tool call. The first delta of a call carries its id and name; later ones only
     * append to its arguments. The arguments of all deltas of one index concatenate to JSON.
     *
     * @param index     the call's position among this response's calls
     * @param id        the call's id on its first delta, else empty
     * @param name      the function's name on its first delta, else empty
     * @param arguments the next piece of the arguments' JSON text
     */
    record ToolCallDelta(int index, String id, String name, String arguments) implements ChatDelta {
        public ToolCallDelta {
            Objects.requireNonNull(id);
            Objects.requireNonNull(name);
            Objects.requireNonNull(arguments);
        }
    }
}
