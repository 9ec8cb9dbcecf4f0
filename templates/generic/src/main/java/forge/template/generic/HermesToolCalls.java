package forge.template.generic;

import forge.api.template.ChatPrompt;
import forge.api.template.OutputParser;
import forge.api.template.ToolDefinition;
import forge.template.toolkit.Gbnf;
import forge.template.toolkit.PythonJson;
import forge.template.toolkit.calls.MarkupParser;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Hermes/Qwen tool-call syntax, {@code <tool_call>\n{"name": ..., "arguments": ...}\n</tool_call>}:
 * the generic family's convention for ChatML, and for a model's own Jinja template when that
 * template writes {@code <tool_call>} itself (Hermes, Qwen and many fine-tunes do).
 */
public final class HermesToolCalls {

    static final String OPEN = "<tool_call>";
    static final String CLOSE = "</tool_call>";
    /** The text that opens a call: a lazy grammar engages there. */
    public static final List<String> TRIGGERS = List.of(OPEN);
    /**
     * Calls between the markers; their arguments stream as the model writes them, a block of
     * another shape is read whole, and one that is not a call stays content, markup included.
     */
    private static final MarkupParser.Syntax SYNTAX = new MarkupParser.Syntax("", "", false, OPEN, CLOSE, false,
            block -> List.of(MarkupParser.jsonCall(block, "arguments")), "arguments");

    private HermesToolCalls() {
    }

    /** Whether a Jinja template writes this syntax itself. */
    public static boolean usedBy(String jinjaSource) {
        return jinjaSource.contains(OPEN) && jinjaSource.contains(CLOSE);
    }

    /** Tool calls are parsed only when the request offers tools; otherwise all output is content. */
    public static OutputParser parser(ChatPrompt prompt) {
        return prompt.tools().isEmpty() ? OutputParser.PLAIN.get() : new MarkupParser(SYNTAX);
    }

    /**
     * {@code <tool_call>\n{"name": "f", "arguments": ARGS}\n</tool_call>}, Qwen's and Hermes's
     * form, which {@link #parser} reads back; several calls are separated by a newline.
     */
    public static Optional<String> grammar(List<ToolDefinition> tools, Map<String, String> argumentRules, boolean parallel) {
        if (tools.isEmpty()) {
            return Optional.empty();
        }
        StringBuilder fn = new StringBuilder();
        for (ToolDefinition tool : tools) {
            String rule = argumentRules.get(tool.name());
            if (rule == null) {
                throw new IllegalArgumentException("no argument rule for tool " + tool.name());
            }
            if (!fn.isEmpty()) {
                fn.append(" | ");
            }
            fn.append(Gbnf.literal(PythonJson.quote(tool.name()) + ", \"arguments\": ")).append(' ').append(rule);
        }
        String grammar = "root ::= tc-call" + (parallel ? " (\"\\n\" tc-call)*" : "") + "\n"
                + "tc-call ::= " + Gbnf.literal(OPEN + "\n{\"name\": ") + " tc-function "
                + Gbnf.literal("}\n" + CLOSE) + "\n"
                + "tc-function ::= " + fn + "\n";
        return Optional.of(grammar);
    }
}
