package forge.template.generic;

import forge.api.TemplateException;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.template.jinja.JinjaException;
import forge.template.jinja.Template;
import forge.template.toolkit.TemplateCaps;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One of llama-server's built-in chat formats ({@code --chat-template NAME} without
 * {@code --jinja}): a Jinja template bundled with this plugin that renders a conversation byte for
 * byte as llama.cpp's {@code llm_chat_apply_template} does for that name. The formats know only
 * roles and text, as llama.cpp's do: tool calls and tool definitions are not rendered, and a
 * message's content is its text, content parts joined as llama-server joins them ({@link #text}).
 *
 * <p>The names and their files are listed in {@code llama-server/index} beside the templates.
 */
final class LlamaServerTemplate implements ChatTemplate {

    private static final String FOLDER = "/META-INF/forge/templates/generic/llama-server/";

    /** What C's {@code isspace} accepts in the "C" locale: the characters llama.cpp's {@code trim} strips. */
    private static final String C_SPACE = " \t\n\u000b\f\r";

    /**
     * One line of the index.
     *
     * @param name      the name llama-server accepts
     * @param file      the template's file in the folder
     * @param endOfTurn the texts that end the model's turn in this format
     */
    record Format(String name, String file, List<String> endOfTurn) {
        Format {
            endOfTurn = List.copyOf(endOfTurn);
        }
    }

    /** Every built-in name llama-server accepts but {@code chatml} (the generic family's own ChatML), in index order. */
    static final Map<String, Format> FORMATS = index();

    private final Format format;
    private final Template template;

    private LlamaServerTemplate(Format format, Template template) {
        this.format = format;
        this.template = template;
    }

    /** The format llama-server calls {@code name}; fails for a name not in the index. */
    static LlamaServerTemplate of(String name) {
        Format format = FORMATS.get(name);
        if (format == null) {
            throw new IllegalArgumentException("not a llama-server chat template: " + name);
        }
        try {
            return new LlamaServerTemplate(format, Template.compile(read(format.file())));
        } catch (JinjaException e) {
            // A bundled template that does not parse is this plugin's bug, not the user's.
            throw new IllegalStateException(
                    format.file() + " does not parse: line " + e.line() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return format.name();
    }

    @Override
    public List<String> endOfTurn() {
        return format.endOfTurn();
    }

    @Override
    public String render(ChatPrompt prompt) {
        List<Object> messages = new ArrayList<>(prompt.messages().size());
        for (ChatMessage m : prompt.messages()) {
            Map<String, Object> view = new LinkedHashMap<>();
            // The role as the client named it: llama.cpp compares role strings, and passes unknown ones through or
            // leaves them out.
            view.put("role", m.role().wire());
            view.put("content", text(m));
            messages.add(view);
        }
        Map<String, Object> context = new HashMap<>();
        context.put("messages", messages);
        context.put("add_generation_prompt", prompt.addGenerationPrompt());
        context.put("builtin", format.name());
        context.put("ws", C_SPACE);
        try {
            return template.render(context);
        } catch (JinjaException e) {
            throw new TemplateException("chat template " + format.name() + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * The message's text as llama-server hands it to the built-in formats: a list of text parts as
     * the client sent it joined with "\n" (common_chat_templates_apply_legacy), where
     * {@link ChatMessage#content} runs them together.
     */
    static String text(ChatMessage m) {
        return TemplateCaps.parts(m).map(TemplateCaps::joined).orElse(m.content());
    }

    private static Map<String, Format> index() {
        Map<String, Format> out = new LinkedHashMap<>();
        for (String line : read("index").split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.trim().split("\\s+");
            List<String> ends = Arrays.stream(f, 2, f.length)
                    .map(e -> e.replace("\\n", "\n"))
                    .toList();
            out.put(f[0], new Format(f[0], f[1], ends));
        }
        return Collections.unmodifiableMap(out);
    }

    private static String read(String file) {
        try (InputStream in = LlamaServerTemplate.class.getResourceAsStream(FOLDER + file)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + FOLDER + file);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
