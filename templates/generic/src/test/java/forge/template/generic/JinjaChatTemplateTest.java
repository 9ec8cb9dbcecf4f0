package forge.template.generic;

import static forge.template.generic.SentMessages.sent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import forge.api.TemplateException;
import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.Role;
import forge.api.template.TemplateContext;
import forge.api.template.ToolCall;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JinjaChatTemplateTest {

    private static ChatPrompt prompt(List<ChatMessage> messages, Map<String, Object> options) {
        return new ChatPrompt(messages, List.of(), true, options);
    }

    /** The reason rendering {@code source} over {@code message} alone fails with. */
    private static String renderFailure(String source, ChatMessage message) {
        return assertThrows(TemplateException.class, () -> render(source, prompt(List.of(message), Map.of())))
                .getMessage();
    }

    private static String render(String source, ChatPrompt prompt) {
        return new JinjaChatTemplate("generic", source, "<s>", "</s>").render(prompt);
    }

    @Test
    void genericIsPerModelAndUsesTheModelsOwnTemplate() {
        GenericTemplates provider = new GenericTemplates();
        ChatTemplate a = provider.create("generic", context("A{{ messages[0].content }}"));
        ChatTemplate b = provider.create("generic", context("B{{ messages[0].content }}"));
        ChatPrompt hi = ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "hi")));
        assertEquals("Ahi", a.render(hi));
        assertEquals("Bhi", b.render(hi));
        // no template in the GGUF: the shared ChatML fallback
        ChatTemplate none = provider.create(
                "generic",
                new TemplateContext(
                        new ModelDescriptor("m", List.of(), Path.of("m.gguf"), ModelMetadata.EMPTY), "", ""));
        assertSame(
                none,
                provider.create(
                        "generic",
                        new TemplateContext(
                                new ModelDescriptor("n", List.of(), Path.of("n.gguf"), ModelMetadata.EMPTY), "", "")));
        assertEquals("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n", none.render(hi));
    }

    private static TemplateContext context(String template) {
        return new TemplateContext(
                new ModelDescriptor(
                        "m",
                        List.of(),
                        Path.of("m.gguf"),
                        new ModelMetadata(Map.of("tokenizer.chat_template", template), Map.of())),
                "<s>",
                "</s>");
    }

    @Test
    void aClientsMessageReachesTheTemplateAsSent() {
        // transformers hands the template the list of parts, None and every key; only arguments are parsed
        ChatMessage parts = sent(
                Role.USER,
                "ab",
                "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},{\"type\":\"text\",\"text\":\"b\"}],\"x_extra\":7}");
        ChatMessage none = new ChatMessage(
                Role.ASSISTANT,
                "",
                "",
                List.of(new ToolCall("c1", "f", "{\"k\": [1, null]}")),
                "",
                "",
                "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\","
                        + "\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"k\\\": [1, null]}\"}}]}");
        String source =
                "{% for m in messages %}{{ m.content is none }}|{{ m.content is string }}|{{ m.content | tojson }}|"
                        + "{{ m.x_extra }}|{% for c in m.tool_calls or [] %}{{ c.function.arguments.k[1] is none }}{% endfor %};{% endfor %}";
        assertEquals(
                "False|False|[{\"type\": \"text\", \"text\": \"a\"}, {\"type\": \"text\", \"text\": \"b\"}]|7|;"
                        + "True|False|null||True;",
                render(source, prompt(List.of(parts, none), Map.of())));
        // a message made here (no wire form) is still OpenAI's shape, content a string
        assertEquals(
                "False|True|\"hi\"||;", render(source, prompt(List.of(ChatMessage.of(Role.USER, "hi")), Map.of())));
    }

    @Test
    void endOfTurnIsTheEosTextPlusTheKnownMarkersTheTemplateWrites() {
        assertEquals(
                List.of("</s>", "<|end|>", "<|endoftext|>"),
                new JinjaChatTemplate("generic", "{{ '<|user|>' }}x<|end|>{{ '<|endoftext|>' }}", "<s>", "</s>")
                        .endOfTurn());
        assertEquals(
                List.of("<|eot_id|>"),
                new JinjaChatTemplate("generic", "{{ '<|eot_id|>' }}", "", "<|eot_id|>").endOfTurn());
        assertEquals(List.of(), new JinjaChatTemplate("generic", "{{ messages }}", "", "").endOfTurn());
    }

    @Test
    void raiseExceptionIsTheTemplatesReason() {
        assertEquals(
                "first must be user, not assistant",
                renderFailure(
                        "{% if messages[0].role != 'user' %}{{ raise_exception('first must be user, not ' ~ messages[0].role) }}{% endif %}ok",
                        ChatMessage.of(Role.ASSISTANT, "x")));
    }

    @Test
    void aTemplateThatDoesNotParseFailsWhenCreatedWithItsLine() {
        TemplateException e = assertThrows(
                TemplateException.class, () -> new JinjaChatTemplate("generic", "a\n{% for x in y %}no end", "", ""));
        assertEquals(
                "the model's chat template does not parse: line 2: Unexpected end of template. Jinja was looking for the "
                        + "following tags: 'else' or 'endfor'.",
                e.getMessage());
    }

    @Test
    void aModelWhoseTemplateDoesNotParseIsServedAndRefusesEachRequestWithTheReason() {
        ChatTemplate t = new GenericTemplates().create("generic", context("a\n{% for x in y %}no end"));
        String reason =
                "the model's chat template does not parse: line 2: Unexpected end of template. Jinja was looking for the "
                        + "following tags: 'else' or 'endfor'.";
        assertEquals(java.util.Optional.of(reason), t.unusable());
        TemplateException e = assertThrows(
                TemplateException.class, () -> t.render(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "hi")))));
        assertEquals(reason, e.getMessage());
        assertEquals(
                java.util.Optional.empty(),
                new GenericTemplates().create("generic", context("{{ 1 }}")).unusable());
    }

    @Test
    void speaksPythonStringAndDictMethodsAndPrintsPythonBooleans() {
        String out =
                render("""
                {%- set c = messages[0].content -%}
                {{ c.split('|')[1] }}|{{ c.startswith('  a') }}|{{ c.strip() }}|{{ c.lstrip().upper() }}|{{ c.rstrip('| ') }}|\
                {{ c.replace('a', 'A') }}|{% for k, v in opts.items() %}{{ k }}={{ v }};{% endfor %}|{{ c.endswith(('x', 'b  ')) }}|{{ c | trim }}""", prompt(List.of(ChatMessage.of(Role.USER, "  a|b  ")), Map.of("opts", Map.of("on", true))));
        assertEquals("b  |True|a|b|A|B  |  a|b|  A|b  |on=True;|True|a|b", out);
    }

    @Test
    void whitespaceControlStripsAsJinja2() {
        assertEquals(
                "[hi]",
                render(
                        "[\n    {{- messages[0].content -}}\n   ]",
                        prompt(List.of(ChatMessage.of(Role.USER, "hi")), Map.of())));
        // Jinja2 (trim_blocks, lstrip_blocks) renders 'ab': trim_blocks eats the newline after endif
        assertEquals(
                "ab",
                render(
                        "{% for m in ['a', 'b'] %}\n    {%- if not loop.first %}\n{% endif %}{{ m }}\n{%- endfor %}",
                        prompt(List.of(ChatMessage.of(Role.USER, "x")), Map.of())));
    }

    @Test
    void toolCallArgumentsAreObjectsPrintedWithPythonsJson() {
        var call = ChatMessage.calling("", List.of(new ToolCall("c1", "f", "{\"x\":1.0,\"y\":null}")));
        assertEquals(
                "f {\"x\": 1.0, \"y\": null} 1.0",
                render(
                        "{% for t in messages[0].tool_calls %}{{ t.function.name }} {{ t.function.arguments | tojson }} {{ t.function.arguments.x }}{% endfor %}",
                        prompt(List.of(call), Map.of())));
    }

    @Test
    void aFailedRenderSaysSoInPythonsWords() {
        assertEquals(
                "the model's chat template failed at line 1: 'NoneType' object is not iterable",
                renderFailure("{% for t in tools %}{{ t }}{% endfor %}", ChatMessage.of(Role.USER, "x")));
        assertEquals(
                "the model's chat template failed at line 1: can only concatenate str (not \"dict\") to str",
                renderFailure("{{ 'a' + {'b': 1} }}", ChatMessage.of(Role.USER, "x")));
    }

    @Test
    void nullOptionsAreNone() {
        java.util.Map<String, Object> options = new java.util.HashMap<>();
        options.put("flag", forge.lib.text.PythonJson.NULL);
        assertEquals(
                "True|None",
                render("{{ flag is none }}|{{ flag }}", prompt(List.of(ChatMessage.of(Role.USER, "x")), options)));
    }
}
