package forge.template.testkit;

import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.Role;
import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import forge.lib.text.PythonJson;
import forge.template.toolkit.TemplateCaps;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The golden corpus written by {@code templates/golden/make_golden.py}: conversations
 * ({@code cases/*.json}) and what each official template renders from them
 * ({@code expected/<variant>/<case>.txt}) or the error it raises ({@code .error}): the family
 * variants render the family cases, the {@code official/} templates every case.
 */
public final class GoldenCorpus {

    /** One case's outcome for one variant. */
    public record Expected(
            String caseName, ChatPrompt prompt, Optional<String> text, Optional<String> error, boolean raised) {}

    private final Path root;

    private GoldenCorpus(Path root) {
        this.root = root;
    }

    /** The corpus beside the family modules ({@code templates/golden}), found from the working directory. */
    public static GoldenCorpus locate() {
        Path dir = Path.of(System.getProperty("forge.golden.dir", "../golden"))
                .toAbsolutePath()
                .normalize();
        if (!Files.isDirectory(dir.resolve("cases"))) {
            throw new IllegalStateException("golden corpus not found at " + dir);
        }
        return new GoldenCorpus(dir);
    }

    /** The capabilities probing {@code variant}'s official template found (templates.json), as make_golden.py applied them. */
    @SuppressWarnings("unchecked")
    public TemplateCaps caps(String variant) {
        try {
            Map<String, Object> index = (Map<String, Object>)
                    PythonJson.parse(Files.readString(root.resolve("templates.json"), StandardCharsets.UTF_8));
            Map<String, Object> caps = (Map<String, Object>) ((Map<String, Object>) index.get(variant)).get("caps");
            return new TemplateCaps((Boolean) caps.get("join_parts"), (Boolean) caps.get("null_as_empty"), (Boolean)
                    caps.get("developer_as_system"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every case with the outcome of {@code variant}'s official template. */
    public List<Expected> expected(String variant) {
        Path dir = root.resolve("expected").resolve(variant);
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("no golden renders for variant " + variant + " in " + dir);
        }
        List<Expected> out = new ArrayList<>();
        // The variant's own renders name its cases: the family variants render the family cases,
        // the official/ templates every case.
        try (Stream<Path> renders = Files.list(dir)) {
            for (Path r : renders.sorted().toList()) {
                String file = r.getFileName().toString();
                String name = file.replaceFirst("\\.(txt|error)$", "");
                ChatPrompt prompt =
                        prompt(Files.readString(root.resolve("cases").resolve(name + ".json"), StandardCharsets.UTF_8));
                if (file.endsWith(".txt")) {
                    out.add(new Expected(
                            name,
                            prompt,
                            Optional.of(Files.readString(r, StandardCharsets.UTF_8)),
                            Optional.empty(),
                            false));
                } else {
                    List<String> lines = Files.readAllLines(r, StandardCharsets.UTF_8);
                    out.add(new Expected(
                            name,
                            prompt,
                            Optional.empty(),
                            Optional.of(lines.get(0)),
                            lines.size() > 1 && lines.get(1).equals("raise_exception")));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** A case's JSON as ForgeLM's HTTP layer would hand it to a template. */
    @SuppressWarnings("unchecked")
    public static ChatPrompt prompt(String json) {
        Map<String, Object> doc = (Map<String, Object>) PythonJson.parse(json);
        List<ChatMessage> messages = new ArrayList<>();
        for (Object o : (List<Object>) doc.get("messages")) {
            Map<String, Object> m = (Map<String, Object>) o;
            List<ToolCall> calls = new ArrayList<>();
            for (Object c : (List<Object>) m.getOrDefault("tool_calls", List.of())) {
                Map<String, Object> call = (Map<String, Object>) c;
                Map<String, Object> fn = (Map<String, Object>) call.get("function");
                calls.add(new ToolCall(
                        (String) call.get("id"), (String) fn.get("name"), PythonJson.dumps(fn.get("arguments"))));
            }
            // content as forge.http reads it: text parts joined, null as ""; the message itself as sent
            messages.add(new ChatMessage(
                    Role.fromWire((String) m.get("role")),
                    text(m.get("content")),
                    (String) m.getOrDefault("name", ""),
                    calls,
                    (String) m.getOrDefault("tool_call_id", ""),
                    (String) m.getOrDefault("reasoning_content", ""),
                    PythonJson.dumps(m)));
        }
        List<ToolDefinition> tools = new ArrayList<>();
        for (Object t : (List<Object>) doc.get("tools")) {
            Map<String, Object> fn = (Map<String, Object>) ((Map<String, Object>) t).get("function");
            tools.add(new ToolDefinition(
                    (String) fn.get("name"), (String) fn.getOrDefault("description", ""), (Map<String, Object>)
                            fn.get("parameters")));
        }
        Map<String, Object> options = new LinkedHashMap<>((Map<String, Object>) doc.get("chat_template_kwargs"));
        return new ChatPrompt(messages, tools, (Boolean) doc.get("add_generation_prompt"), options);
    }

    /** A message's content as forge.http's ChatRequest reads it: a string, text parts joined, else "". */
    @SuppressWarnings("unchecked")
    private static String text(Object content) {
        if (content instanceof String s) {
            return s;
        }
        StringBuilder sb = new StringBuilder();
        if (content instanceof List<?> parts) {
            for (Object p : parts) {
                sb.append(((Map<String, Object>) p).get("text"));
            }
        }
        return sb.toString();
    }
}
