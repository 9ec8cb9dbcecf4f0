package forge.template.toolkit.calls;

import forge.api.template.OutputParser;
import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A syntax whose calls stand between an opening and a closing marker, which the opening one
 * triggers: what its {@link #triggers()} and {@link #parser} are follows from the two markers and
 * how a block between them decodes, so each such syntax says only that.
 */
abstract sealed class MarkupToolCalls implements ToolCallSyntax
        permits Gemma4ToolCalls, HermesToolCalls, KimiToolCalls, QwenXmlToolCalls {
    private final String open;
    private final String close;
    private final String streamedArgumentsKey;

    /**
     * @param open                 the marker that opens a block of calls (and triggers a lazy grammar)
     * @param close                the marker that closes it
     * @param streamedArgumentsKey see {@link MarkupParser.Syntax}; empty: blocks are decoded whole
     */
    MarkupToolCalls(String open, String close, String streamedArgumentsKey) {
        this.open = Objects.requireNonNull(open);
        this.close = Objects.requireNonNull(close);
        this.streamedArgumentsKey = Objects.requireNonNull(streamedArgumentsKey);
    }

    /** How the text between the markers decodes into calls, when {@code tools} are offered. */
    abstract Function<String, List<ToolCall>> decoder(List<ToolDefinition> tools);

    @Override
    public List<String> triggers() {
        return List.of(open);
    }

    @Override
    public OutputParser parser(Reasoning reasoning, List<ToolDefinition> tools) {
        return new MarkupParser(
                new MarkupParser.Syntax(reasoning, open, close, false, decoder(tools), streamedArgumentsKey));
    }
}
