package forge.template.toolkit.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.template.ChatDelta;
import forge.api.template.OutputParser;
import forge.api.template.ToolCall;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The streaming machinery on a made-up format; each family's syntax has its own tests beside it. */
class MarkupParserTest {

    private static final MarkupParser.Syntax WHOLE = new MarkupParser.Syntax(
            new Reasoning("<r>", "</r>", false),
            "<c>",
            "</c>",
            false,
            block -> List.of(JsonCall.decode(block, "args")));
    private static final MarkupParser.Syntax STREAMED = new MarkupParser.Syntax(
            new Reasoning("<r>", "</r>", false),
            "<c>",
            "</c>",
            false,
            block -> List.of(JsonCall.decode(block, "args")),
            "args");

    private static List<ChatDelta> byChars(MarkupParser.Syntax syntax, String text) {
        return ToolCallDeltas.feedCharByChar(new MarkupParser(syntax), text);
    }

    private static String joined(List<ChatDelta> deltas, Class<? extends ChatDelta> kind) {
        StringBuilder sb = new StringBuilder();
        for (ChatDelta d : deltas) {
            if (kind.isInstance(d)) {
                sb.append(
                        switch (d) {
                            case ChatDelta.Content c -> c.text();
                            case ChatDelta.Reasoning r -> r.text();
                            case ChatDelta.ToolCallDelta t -> t.arguments();
                        });
            }
        }
        return sb.toString();
    }

    @Test
    void reasoningAndContentAreSplitAndMarkupNeverLeaks() {
        List<ChatDelta> out = byChars(WHOLE, "<r>think</r>\n answer <x");
        assertEquals("think", joined(out, ChatDelta.Reasoning.class));
        assertEquals("answer <x", joined(out, ChatDelta.Content.class), "blanks after a closing marker are dropped");
    }

    @Test
    void aPossibleMarkerIsHeldBackUntilTheNextFeedDecides() {
        OutputParser p = new MarkupParser(WHOLE);
        assertEquals(List.of(new ChatDelta.Content("a ")), p.feed("a <"));
        assertEquals(List.of(new ChatDelta.Content("<b")), p.feed("b"));
        assertEquals(List.of(), p.feed("<c"));
        assertEquals(List.of(new ChatDelta.Content("<c")), p.finish());
    }

    @Test
    void aBlockIsOneCallWithCompactArguments() {
        List<ChatDelta> out = new MarkupParser(WHOLE).feed("<c>{\"name\": \"f\", \"args\": {\"a\": [1, 2.0]}}</c>");
        assertEquals(1, out.size());
        ChatDelta.ToolCallDelta call = (ChatDelta.ToolCallDelta) out.getFirst();
        assertEquals(0, call.index());
        assertEquals("f", call.name());
        assertEquals("{\"a\":[1,2.0]}", call.arguments());
        assertTrue(call.id().startsWith("call_"), call.id());
    }

    @Test
    void aBlockThatIsNotACallStaysContentMarkupIncluded() {
        assertEquals("<c>nope</c>", joined(byChars(WHOLE, "<c>nope</c>"), ChatDelta.Content.class));
    }

    @Test
    void streamedArgumentsFlowAsWrittenWithoutBlanksOutsideStrings() {
        List<ChatDelta> out =
                byChars(STREAMED, "<c>{\"name\": \"f\", \"args\": {\"a\": \"x } y\", \"b\": [1, 2]}}</c>after");
        List<ChatDelta.ToolCallDelta> calls = out.stream()
                .filter(d -> d instanceof ChatDelta.ToolCallDelta)
                .map(d -> (ChatDelta.ToolCallDelta) d)
                .toList();
        assertTrue(calls.size() > 2, "the arguments stream: " + calls);
        assertEquals("f", calls.getFirst().name());
        assertTrue(
                calls.stream().skip(1).allMatch(c -> c.name().isEmpty() && c.id().isEmpty() && c.index() == 0),
                calls.toString());
        assertEquals("{\"a\":\"x } y\",\"b\":[1,2]}", joined(out, ChatDelta.ToolCallDelta.class));
        assertEquals("after", joined(out, ChatDelta.Content.class));
    }

    @Test
    void outputMayStartInsideReasoning() {
        MarkupParser.Syntax opened =
                new MarkupParser.Syntax(new Reasoning("<r>", "</r>", true), "", "", false, b -> List.<ToolCall>of());
        List<ChatDelta> out = byChars(opened, "hm</r>ok");
        assertEquals("hm", joined(out, ChatDelta.Reasoning.class));
        assertEquals("ok", joined(out, ChatDelta.Content.class));
    }

    @Test
    void aLeadingJsonCallIsReadAtTheEndAndPlainTextIsNot() {
        MarkupParser.Syntax leading =
                new MarkupParser.Syntax(Reasoning.NONE, "", "", true, block -> List.of(JsonCall.decode(block, "args")));
        List<ChatDelta> call = byChars(leading, " {\"name\": \"f\", \"args\": {}}");
        assertEquals(1, call.size(), call.toString());
        assertEquals("f", ((ChatDelta.ToolCallDelta) call.getFirst()).name());
        assertEquals("hi {\"name\": \"f\"}", joined(byChars(leading, "hi {\"name\": \"f\"}"), ChatDelta.Content.class));
    }
}
