package forge.template.toolkit.calls;

import forge.api.template.OutputParser;
import forge.api.template.ToolDefinition;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One way models write tool calls, defined once: the parser that reads calls back out of the
 * output and the grammar that makes a model write them, side by side, so what the grammar admits
 * is what the parser reads. A chat template answers {@link forge.api.template.ChatTemplate}'s
 * {@code parser}, {@code toolCallGrammar} and {@code toolCallTriggers} with its family's syntax,
 * named once as a {@link ToolCallingTemplate}.
 *
 * {@snippet :
 * ToolCallSyntax calls = HermesToolCalls.SYNTAX;
 * OutputParser parser = calls.parser(new Reasoning("<think>", "</think>", false), prompt.tools());
 * Optional<String> grammar = calls.grammar(prompt.tools(), argumentRules, true);
 * List<String> triggers = calls.triggers();        // ["<tool_call>"]: where a lazy grammar engages
 * }
 */
public sealed interface ToolCallSyntax permits MarkupToolCalls, LlamaToolCalls {

    /** The texts that open a call: a lazy grammar engages at the first of them the model writes. */
    List<String> triggers();

    /**
     * A parser for one response in this syntax, with the family's reasoning markers; {@code tools}
     * are those the request offers (a syntax whose values are text types them by their schemas).
     */
    OutputParser parser(Reasoning reasoning, List<ToolDefinition> tools);

    /**
     * {@link #parser}, but all output is content when the request offers no tools: for a family
     * whose format is only a convention (the generic one), a call nobody offered is text.
     */
    default OutputParser parserWhenOffered(Reasoning reasoning, List<ToolDefinition> tools) {
        return tools.isEmpty() ? OutputParser.PLAIN.get() : parser(reasoning, tools);
    }

    /**
     * The grammar of one call ({@code parallel}: one or more) to one of {@code tools}, as
     * {@link forge.api.template.ChatTemplate#toolCallGrammar} describes it: {@code argumentRules}
     * names the caller's rule for each tool's JSON arguments. Empty when there are no tools.
     *
     * @throws IllegalArgumentException when a tool has no argument rule and the syntax needs one
     */
    Optional<String> grammar(List<ToolDefinition> tools, Map<String, String> argumentRules, boolean parallel);
}
