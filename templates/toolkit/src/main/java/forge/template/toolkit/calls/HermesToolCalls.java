package forge.template.toolkit.calls;

import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The Hermes/Qwen syntax, {@code <tool_call>\n{"name": ..., "arguments": ...}\n</tool_call>}:
 * Qwen 2.5 and Qwen 3 write it, so do Hermes and many fine-tunes, and the generic family uses it
 * for ChatML and for a model's own Jinja template that writes {@code <tool_call>} itself.
 *
 * <p>Calls between the markers stream their arguments as the model writes them, a block of
 * another shape is read whole, and one that is not a call stays content, markup included.
 * Several calls are separated by a newline.
 *
 * {@snippet :
 * OutputParser p = HermesToolCalls.SYNTAX.parser(Reasoning.NONE, tools);
 * p.feed("<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>");
 * // ToolCallDelta(0, "call_…", "f", "{\"a\":") then ToolCallDelta(0, "", "", "1}"), as the text arrives
 * }
 */
public final class HermesToolCalls extends MarkupToolCalls {

    /** The one instance. */
    public static final HermesToolCalls SYNTAX = new HermesToolCalls();

    static final String OPEN = "<tool_call>";
    static final String CLOSE = "</tool_call>";
    private static final String KEY = "arguments";

    private HermesToolCalls() {
        super(OPEN, CLOSE, KEY);
    }

    /** Whether a Jinja template writes this syntax itself. */
    public boolean usedBy(String jinjaSource) {
        return jinjaSource.contains(OPEN) && jinjaSource.contains(CLOSE);
    }

    @Override
    Function<String, List<ToolCall>> decoder(List<ToolDefinition> tools) {
        return block -> List.of(JsonCall.decode(block, KEY));
    }

    /** {@code <tool_call>\n{"name": "f", "arguments": ARGS}\n</tool_call>}, calls separated by a newline. */
    @Override
    public Optional<String> grammar(List<ToolDefinition> tools, Map<String, String> argumentRules, boolean parallel) {
        if (tools.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("root ::= tc-call" + (parallel ? " (\"\\n\" tc-call)*" : "") + "\n"
                + JsonCall.rule(OPEN + "\n", KEY, "\n" + CLOSE, tools, argumentRules));
    }
}
