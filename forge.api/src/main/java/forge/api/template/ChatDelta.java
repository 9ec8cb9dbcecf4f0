package forge.api.template;

import java.util.ArrayList;
import java.util.List;
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

    /**
     * What a run of deltas adds up to, as a client that reads a whole reply sees it.
     *
     * @param reasoning the reasoning texts joined
     * @param content   the content texts joined
     * @param calls     the tool-call deltas in order (a call's arguments span several)
     */
    record Joined(String reasoning, String content, List<ToolCallDelta> calls) {
        public Joined {
            Objects.requireNonNull(reasoning);
            Objects.requireNonNull(content);
            calls = List.copyOf(calls);
        }

        /** {@code deltas} joined. */
        public static Joined of(List<ChatDelta> deltas) {
            StringBuilder reasoning = new StringBuilder();
            StringBuilder content = new StringBuilder();
            List<ToolCallDelta> calls = new ArrayList<>();
            for (ChatDelta d : deltas) {
                switch (d) {
                    case Reasoning r -> reasoning.append(r.text());
                    case Content c -> content.append(c.text());
                    case ToolCallDelta c -> calls.add(c);
                }
            }
            return new Joined(reasoning.toString(), content.toString(), calls);
        }
    }
}
