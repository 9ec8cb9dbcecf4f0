package forge.template.toolkit.calls;

import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.OutputParser;
import forge.api.template.ToolDefinition;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A chat template that names its family's {@link ToolCallSyntax} and {@link Reasoning} once: the
 * parser, the tool-call grammar and the triggers are then that syntax's, so what the grammar
 * admits is what the parser reads, in every family alike.
 *
 * {@snippet :
 * final class QwenTemplate implements ToolCallingTemplate {
 *     public ToolCallSyntax toolCallSyntax() {
 *         return HermesToolCalls.SYNTAX;
 *     }
 *
 *     public Reasoning reasoning(ChatPrompt prompt) {
 *         return new Reasoning("<think>", "</think>", render(prompt).endsWith("<think>\n"));
 *     }
 *     // render, endOfTurn ...: parser, toolCallGrammar and toolCallTriggers come from the two above
 * }
 * }
 */
public interface ToolCallingTemplate extends ChatTemplate {

    /** The syntax this template's model writes its tool calls in. */
    ToolCallSyntax toolCallSyntax();

    /**
     * The reasoning markers of one response to {@code prompt} (whether the prompt already opened
     * reasoning depends on it); {@link Reasoning#NONE}, the default, for a family that does not reason.
     */
    default Reasoning reasoning(ChatPrompt prompt) {
        return Reasoning.NONE;
    }

    /** The syntax's parser with this template's reasoning, for the tools the request offers. */
    @Override
    default OutputParser parser(ChatPrompt prompt) {
        return toolCallSyntax().parser(reasoning(prompt), prompt.tools());
    }

    /** {@inheritDoc} The syntax's grammar ({@link ToolCallSyntax#grammar}). */
    @Override
    default Optional<String> toolCallGrammar(
            List<ToolDefinition> tools, Map<String, String> argumentRules, boolean parallel) {
        return toolCallSyntax().grammar(tools, argumentRules, parallel);
    }

    /** {@inheritDoc} The syntax's triggers ({@link ToolCallSyntax#triggers}). */
    @Override
    default List<String> toolCallTriggers() {
        return toolCallSyntax().triggers();
    }
}
