package forge.template.toolkit;

import static forge.template.toolkit.TemplateCaps.message;
import static forge.template.toolkit.TemplateCaps.part;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import forge.api.template.ChatImage;
import forge.api.template.ChatMessage;
import forge.api.template.Role;
import forge.lib.text.PythonValues;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TemplateCapsTest {

    /** A template that prints each content as Python would with {@code + message.content}: strings only. */
    private static String concatenating(List<Object> messages, List<Object> tools) {
        StringBuilder out = new StringBuilder();
        for (Object o : messages) {
            Map<?, ?> m = (Map<?, ?>) o;
            if (!(m.get("content") instanceof String s)) {
                throw new IllegalArgumentException("can only concatenate str");
            }
            out.append(m.get("role")).append(": ").append(s).append('\n');
        }
        return out.toString();
    }

    /** A template that prints {@code {{ message.content }}}: a list as its repr, None as None. */
    private static String printing(List<Object> messages, List<Object> tools) {
        StringBuilder out = new StringBuilder();
        for (Object o : messages) {
            Map<?, ?> m = (Map<?, ?>) o;
            out.append(PythonValues.str(m.get("content"))).append('\n');
        }
        return out.toString();
    }

    /** A template that iterates parts and tests {@code is none}. */
    private static String partsAware(List<Object> messages, List<Object> tools) {
        StringBuilder out = new StringBuilder();
        for (Object o : messages) {
            Map<?, ?> m = (Map<?, ?>) o;
            switch (m.get("content")) {
                case null -> {}
                case String s -> out.append(s);
                case List<?> parts -> parts.forEach(p -> out.append(((Map<?, ?>) p).get("text")));
                default -> throw new IllegalStateException();
            }
            out.append('\n');
        }
        return out.toString();
    }

    @Test
    void probingFindsWhatATemplateCannotTake() {
        assertEquals(new TemplateCaps(true, true, true), TemplateCaps.probe(TemplateCapsTest::concatenating, "role"));
        assertEquals(new TemplateCaps(true, true, true), TemplateCaps.probe(TemplateCapsTest::printing, "x"));
        assertEquals(
                new TemplateCaps(false, false, false),
                TemplateCaps.probe(TemplateCapsTest::partsAware, "{% if message.role == 'developer' %}"));
        // A template that renders nothing at all takes nothing: left as sent, as llama.cpp leaves it.
        assertEquals(new TemplateCaps(false, false, true), TemplateCaps.probe((m, t) -> "", ""));
        // One that always raises is no reason to rewrite what a client sent.
        assertEquals(
                new TemplateCaps(false, false, true),
                TemplateCaps.probe(
                        (m, t) -> {
                            throw new IllegalStateException("no");
                        },
                        ""));
    }

    @Test
    void partsAreJoinedAsLlamaServerJoinsThem() {
        assertEquals("a\nb", TemplateCaps.joined(List.of(part("a"), part("b"))));
        // no newline before the first non-empty text; other part types are skipped
        assertEquals("b\nc", TemplateCaps.joined(List.of(part(""), part("b"), Map.of("type", "image_url"), part("c"))));
        assertEquals("", TemplateCaps.joined(List.of()));
    }

    @Test
    void fitChangesOnlyTheShapesTheTemplateCannotTake() {
        List<Object> messages = new ArrayList<>(List.of(
                message("developer", "be terse"),
                message("user", new ArrayList<>(List.of(part("one"), part("two")))),
                message("assistant", null)));
        new TemplateCaps(true, true, true).fit(messages);
        assertEquals(
                List.of(message("system", "be terse"), message("user", "one\ntwo"), message("assistant", "")),
                messages);

        List<Object> asSent = new ArrayList<>(List.of(message("developer", "x"), message("assistant", null)));
        assertSame(asSent, TemplateCaps.AS_SENT.fit(asSent));
        assertEquals(List.of(message("developer", "x"), message("assistant", null)), asSent);
    }

    @Test
    void familyTextReadsTheClientsParts() {
        ChatMessage sent = new ChatMessage(
                Role.USER,
                "onetwo",
                "",
                List.of(),
                "",
                "",
                "{\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": \"one\"}, {\"type\": \"text\", \"text\": \"two\"}]}");
        assertEquals("one\ntwo", new TemplateCaps(true, false, true).text(sent));
        assertEquals("onetwo", TemplateCaps.AS_SENT.text(sent));
        assertEquals(
                "one\ntwo",
                new TemplateCaps(true, false, true)
                        .fitted(List.of(sent))
                        .getFirst()
                        .content());
        List<ChatMessage> plain = List.of(ChatMessage.of(Role.USER, "hi"));
        assertSame(plain, TemplateCaps.AS_SENT.fitted(plain));
    }

    /**
     * An image's marker is joined as llama-server joins a media marker: no line break before or after
     * it, texts still one per line; and parts that hold one are joined for every template (llama-server
     * hands the template a string whenever a message has media), typed ones too.
     */
    @Test
    void anImagesMarkerIsJoinedWithoutLineBreaksForEveryTemplate() {
        String m = ChatImage.MARKER;
        assertEquals("Describe it." + m, TemplateCaps.joined(List.of(part("Describe it."), part(m))));
        assertEquals("a" + m + "b\nc", TemplateCaps.joined(List.of(part("a"), part(m), part("b"), part("c"))));
        assertEquals(m + m + "x", TemplateCaps.joined(List.of(part(m), part(m), part("x"))));
        List<Object> messages = new ArrayList<>(List.of(
                message("user", new ArrayList<>(List.of(part("look"), part(m)))),
                message("user", new ArrayList<>(List.of(part("one"), part("two"))))));
        TemplateCaps.AS_SENT.fit(messages);
        assertEquals(
                List.of(
                        message("user", "look" + m),
                        message("user", new ArrayList<>(List.of(part("one"), part("two"))))),
                messages);
        ChatMessage sent = new ChatMessage(
                Role.USER,
                "look" + m,
                "",
                List.of(),
                "",
                "",
                "{\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": \"look\"}, {\"type\": \"text\", \"text\": \""
                        + m + "\"}]}");
        assertEquals("look" + m, new TemplateCaps(true, false, true).text(sent));
        assertEquals("look" + m, TemplateCaps.AS_SENT.text(sent));
        ChatMessage two = new ChatMessage(
                Role.USER,
                "ab" + m,
                "",
                List.of(),
                "",
                "",
                "{\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": \"a\"}, {\"type\": \"text\", \"text\": \"b\"},"
                        + " {\"type\": \"text\", \"text\": \"" + m + "\"}]}");
        assertEquals(
                "a\nb" + m,
                TemplateCaps.AS_SENT.fitted(List.of(two)).getFirst().content(),
                "fitted reads as text does");
    }
}
