package forge.backend.llamacpp.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.TemplateException;
import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.Role;
import forge.api.template.TemplateContext;
import forge.api.template.TemplateVariant;
import forge.backend.llamacpp.LlamaHome;
import forge.template.generic.GenericTemplates;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * llama-server's built-in chat formats, as ForgeLM's generic template plugin renders them, against
 * llama.cpp's own {@code llama_chat_apply_template}: every name llama.cpp lists, every
 * conversation below, with and without the generation prompt, byte for byte. Lives here because
 * only this module reaches the natives; the generic plugin is a test dependency.
 */
class BuiltinChatTemplatesTest {

    /** The conversations: each shape the C++ branches treat differently. */
    private static final Map<String, List<ChatMessage>> CONVERSATIONS = new LinkedHashMap<>();

    static {
        CONVERSATIONS.put("system+user", List.of(m(Role.SYSTEM, "You are terse."), m(Role.USER, "Hi")));
        CONVERSATIONS.put(
                "multi-turn",
                List.of(
                        m(Role.SYSTEM, "Be kind."),
                        m(Role.USER, "What is 2+2?"),
                        m(Role.ASSISTANT, "4."),
                        m(Role.USER, "And 3+3?")));
        CONVERSATIONS.put(
                "no system", List.of(m(Role.USER, "Hello"), m(Role.ASSISTANT, "Hi there"), m(Role.USER, "Bye")));
        CONVERSATIONS.put("user only", List.of(m(Role.USER, "One question")));
        CONVERSATIONS.put("ends with the assistant", List.of(m(Role.USER, "Name a colour"), m(Role.ASSISTANT, "Blue")));
        CONVERSATIONS.put(
                "starts with the assistant",
                List.of(m(Role.ASSISTANT, "How can I help?"), m(Role.USER, "Tell a joke")));
        CONVERSATIONS.put(
                "unicode",
                List.of(
                        m(Role.SYSTEM, "Réponds en français, 日本語も"),
                        m(Role.USER, "Привет 🌍 <|im_end|> [INST]"),
                        m(Role.ASSISTANT, "¡Hola! ✓"),
                        m(Role.USER, "ça va? 你好")));
        // C's isspace is ASCII: a trim in llama.cpp keeps U+00A0 and U+3000 where Python's strip() would not.
        CONVERSATIONS.put(
                "leading and trailing spaces",
                List.of(
                        m(Role.SYSTEM, "  \tsystem with spaces\n "),
                        m(Role.USER, "\n\n  user text \r\n"),
                        m(Role.ASSISTANT, " \u000b\fassistant text\t "),
                        m(Role.USER, "\u00a0nbsp and ideographic\u3000")));
        CONVERSATIONS.put(
                "empty content",
                List.of(m(Role.SYSTEM, ""), m(Role.USER, ""), m(Role.ASSISTANT, ""), m(Role.USER, "")));
        CONVERSATIONS.put(
                "multiple system messages",
                List.of(
                        m(Role.SYSTEM, "First rule."),
                        m(Role.SYSTEM, "Second rule."),
                        m(Role.USER, "Go"),
                        m(Role.ASSISTANT, "Going"),
                        m(Role.SYSTEM, "A late rule."),
                        m(Role.USER, "Stop")));
        CONVERSATIONS.put(
                "tool result",
                List.of(
                        m(Role.USER, "Weather in Paris?"),
                        m(Role.ASSISTANT, "Let me look."),
                        m(Role.TOOL, "{\"temp\": 21}"),
                        m(Role.USER, "Thanks")));
        CONVERSATIONS.put(
                "multi-line",
                List.of(m(Role.USER, "line one\nline two\n\nline four"), m(Role.ASSISTANT, "a\nb"), m(Role.USER, "c")));
        CONVERSATIONS.put("no messages", List.of());
    }

    private static ChatMessage m(Role role, String content) {
        return ChatMessage.of(role, content);
    }

    @BeforeAll
    static void load() {
        LlamaHome.backend(); // loads the libraries and binds the handles
    }

    @Test
    void theGenericPluginTakesExactlyLlamaCppsBuiltinNames() {
        List<String> ours = new GenericTemplates()
                .variants().stream().map(TemplateVariant::name).toList();
        List<String> missing =
                builtinNames().stream().filter(n -> !ours.contains(n)).toList();
        assertEquals(List.of(), missing, "llama.cpp's built-in chat templates that ForgeLM does not accept");
        List<String> extra = ours.stream()
                .filter(n -> !n.equals("generic") && !builtinNames().contains(n))
                .toList();
        assertEquals(
                List.of(), extra, "names the generic plugin takes for llama-server's that llama.cpp does not know");
        assertTrue(builtinNames().size() >= 54, "llama.cpp lists " + builtinNames());
    }

    @Test
    void everyBuiltinRendersEveryConversationAsLlamaCppDoes() {
        List<String> mismatches = new ArrayList<>();
        int compared = 0;
        for (String name : builtinNames()) {
            ChatTemplate ours = create(name);
            for (Map.Entry<String, List<ChatMessage>> c : CONVERSATIONS.entrySet()) {
                for (boolean addAss : new boolean[] {true, false}) {
                    Optional<String> theirs = llamaCpp(name, c.getValue(), addAss);
                    Optional<String> mine = render(ours, c.getValue(), addAss);
                    String where = name + " / " + c.getKey() + " / add_generation_prompt=" + addAss;
                    if (name.equals("chatml") && c.getValue().isEmpty()) {
                        // The generic family's ChatML refuses a conversation without messages (which the API refuses
                        // before it anyway).
                        assertEquals(Optional.empty(), mine, where);
                        continue;
                    }
                    compared++;
                    if (theirs.isEmpty() != mine.isEmpty()) {
                        mismatches.add(where + ": "
                                + (theirs.isEmpty()
                                        ? "llama.cpp refused, ForgeLM rendered"
                                        : "ForgeLM refused, llama.cpp rendered"));
                    } else if (!theirs.equals(mine)) {
                        mismatches.add(where + ":\n  llama.cpp: " + escape(theirs.get()) + "\n  ForgeLM:   "
                                + escape(mine.get()));
                    }
                }
            }
        }
        assertEquals(List.of(), mismatches, mismatches.size() + " of " + compared + " renderings differ");
        assertEquals(builtinNames().size() * CONVERSATIONS.size() * 2 - 2, compared);
    }

    @Test
    void llamaCppRefusesANameItDoesNotKnowAndSoDoesForgeLm() {
        assertEquals(Optional.empty(), llamaCpp("no-such-template", CONVERSATIONS.get("system+user"), true));
        assertThrows(IllegalArgumentException.class, () -> create("no-such-template"));
    }

    @Test
    void eachFormatEndsTheModelsTurnWithAMarkerOfItsOwn() {
        for (String name : builtinNames()) {
            assertTrue(!create(name).endOfTurn().isEmpty(), name + " has no end-of-turn marker");
        }
        assertEquals(List.of("</s>"), create("llama2").endOfTurn());
        assertEquals(List.of("<|eot_id|>"), create("llama3").endOfTurn());
        assertEquals(List.of("<end_of_turn>"), create("gemma").endOfTurn());
        assertEquals(List.of("<|im_end|>"), create("chatml").endOfTurn());
        assertEquals(List.of("\n\n"), create("rwkv-world").endOfTurn());
    }

    /** ForgeLM's rendering; empty where the template refuses the conversation. */
    private static Optional<String> render(ChatTemplate template, List<ChatMessage> messages, boolean addAss) {
        try {
            return Optional.of(template.render(new ChatPrompt(messages, List.of(), addAss, Map.of())));
        } catch (TemplateException e) {
            return Optional.empty();
        }
    }

    private static ChatTemplate create(String name) {
        ModelDescriptor model = new ModelDescriptor("m", List.of(), Path.of("m.gguf"), ModelMetadata.EMPTY);
        return new GenericTemplates().create(name, new TemplateContext(model, "<s>", "</s>"));
    }

    /** {@code llama_chat_builtin_templates}: every name llama.cpp's built-in formatter knows. */
    static List<String> builtinNames() {
        try (Arena arena = Arena.ofConfined()) {
            int n = Llama.llama_chat_builtin_templates(MemorySegment.NULL, 0);
            MemorySegment out = arena.allocate(ADDRESS, n);
            Llama.llama_chat_builtin_templates(out, n);
            List<String> names = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                names.add(out.getAtIndex(ADDRESS, i).reinterpret(Long.MAX_VALUE).getString(0));
            }
            return names;
        }
    }

    /** {@code llama_chat_apply_template(name, chat, n, add_ass, buf, len)}; empty where it returns -1. */
    static Optional<String> llamaCpp(String name, List<ChatMessage> messages, boolean addAss) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment chat = arena.allocate(Structs.llama_chat_message, Math.max(1, messages.size()));
            long size = Structs.llama_chat_message.byteSize();
            int total = 0;
            for (int i = 0; i < messages.size(); i++) {
                MemorySegment one = chat.asSlice(i * size, size);
                Structs.setAddress(
                        one,
                        Structs.llama_chat_message,
                        "role",
                        arena.allocateFrom(messages.get(i).role().wire()));
                Structs.setAddress(
                        one,
                        Structs.llama_chat_message,
                        "content",
                        arena.allocateFrom(messages.get(i).content()));
                total += messages.get(i).content().length() * 3;
            }
            MemorySegment tmpl = arena.allocateFrom(name);
            int length = 256 + 2 * total;
            MemorySegment buf = arena.allocate(length);
            int n = Llama.llama_chat_apply_template(tmpl, chat, messages.size(), addAss, buf, length);
            if (n < 0) {
                return Optional.empty();
            }
            if (n > length) { // the buffer was short: llama.cpp says how long, as its header advises
                length = n;
                buf = arena.allocate(length);
                n = Llama.llama_chat_apply_template(tmpl, chat, messages.size(), addAss, buf, length);
            }
            return Optional.of(new String(buf.asSlice(0, n).toArray(JAVA_BYTE), StandardCharsets.UTF_8));
        }
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t");
    }
}
