package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.sampler.SamplingParams;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.Role;
import forge.api.template.ToolDefinition;
import forge.lib.grammar.GbnfGrammar;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StructuredOutputTest {

    /** A template whose tool-call grammar is {@code <call>NAME ARGS</call>}, or, when {@code ownNotation}, ignores the argument rules. */
    static ChatTemplate template(boolean ownNotation) {
        return template(ownNotation, List.of());
    }

    /** As {@link #template(boolean)}, its tool calls' grammar applied lazily from the first of {@code triggers}. */
    static ChatTemplate template(boolean ownNotation, List<String> triggers) {
        return new ChatTemplate() {
            @Override
            public String name() {
                return ownNotation ? "own-notation" : "json-calls";
            }

            @Override
            public String render(ChatPrompt prompt) {
                return "";
            }

            @Override
            public Optional<String> toolCallGrammar(
                    List<ToolDefinition> tools, Map<String, String> argumentRules, boolean parallel) {
                StringBuilder g = new StringBuilder("root ::= \"<call>\" (");
                for (int i = 0; i < tools.size(); i++) {
                    g.append(i > 0 ? " | " : "")
                            .append('"')
                            .append(tools.get(i).name())
                            .append(' ')
                            .append('"')
                            .append(' ')
                            .append(
                                    ownNotation
                                            ? "\"{}\""
                                            : argumentRules.get(tools.get(i).name()));
                }
                return Optional.of(g.append(") \"</call>\"\n").toString());
            }

            @Override
            public List<String> toolCallTriggers() {
                return triggers;
            }
        };
    }

    static ResponsesRequest request() {
        return request("""
                {"input": "x", "tools": [{"type": "function", "name": "f", "parameters": {"type": "object"}},
                 {"type": "custom", "name": "calc", "format": {"type": "grammar", "syntax": "lark", "definition": "start: /[0-9]+/ \\"+\\" /[0-9]+/\\n"}}],
                 "tool_choice": "required"}""");
    }

    private static ResponsesRequest request(String json) {
        return ResponsesRequest.parse(
                Fields.of(Json.parse(json.getBytes(StandardCharsets.UTF_8))), new ResponseStore());
    }

    /** A prompt of one user message offering the tools of {@code r}. */
    private static ChatPrompt prompt(ResponsesRequest r) {
        return new ChatPrompt(
                List.of(ChatMessage.of(Role.USER, "x")), r.chat().prompt().tools(), true, Map.of());
    }

    @Test
    void aFreeformToolsGrammarIsTheRuleOfItsArguments() {
        ResponsesRequest r = request();
        ChatPrompt prompt = prompt(r);
        String grammar = r.chat()
                .structured()
                .apply(template(false), prompt, SamplingParams.DEFAULTS)
                .sampling()
                .grammar();
        GbnfGrammar.check(grammar);
        assertTrue(
                grammar.contains("root ::= \"<call>\" (\"f \" tool0-args | \"calc \" custom0-args) \"</call>\""),
                grammar);
        assertTrue(grammar.contains("custom0-args ::= \"{\\\"input\\\": \\\"\" custom0-input \"\\\"}\""), grammar);
    }

    @Test
    void aTemplateWritingArgumentsInItsOwnNotationCannotEnforceItSoItIsRefused() {
        ResponsesRequest r = request();
        ChatPrompt prompt = prompt(r);
        ApiError e = assertThrows(
                ApiError.class, () -> r.chat().structured().apply(template(true), prompt, SamplingParams.DEFAULTS));
        assertEquals("tools", e.param());
        assertEquals(
                "tool 'calc' has a grammar, but the chat template 'own-notation' writes tool arguments in its own notation,"
                        + " where the grammar cannot be enforced",
                e.getMessage());
    }

    @Test
    void offeredUnforcedThereTheToolStaysAndItsGrammarIsNamedAsNotEnforced() {
        ResponsesRequest r = request("""
                {"input": "x", "tools": [{"type": "custom", "name": "calc", "format": {"type": "grammar", "syntax": "regex", "definition": "[0-9]+"}}]}""");
        ChatTemplate own = template(true, List.of("<call>"));
        StructuredOutput.Applied applied = r.chat().structured().apply(own, prompt(r), SamplingParams.DEFAULTS);
        assertEquals(
                List.of("tools[calc].format (not enforced by the chat template 'own-notation')"), applied.unenforced());
        assertEquals(
                List.of("<call>"), applied.sampling().grammarTriggers(), "the call itself is still lazily constrained");
    }
}
