package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * llama-server's {@code --chat-template-file FILE} and {@code --chat-template NAME} (ForgeLM's
 * names and llama-server's built-in ones) on {@code forge serve}, and {@code forge models inspect} showing the template and who claims it.
 */
class ChatTemplateOptionsTest {

    private static final String CUSTOM =
            "{% for m in messages %}<<{{ m.role }}>>{{ m.content }}{% endfor %}{% if add_generation_prompt %}<<assistant>>{% endif %}";

    @TempDir
    static Path work;

    private static Path model() {
        return TestServer.modelWithTemplate("tiny-opts", "{{ 'the GGUF template' }}");
    }

    /** A one-slot server of the test model with {@code options}. */
    private static TestServer serve(String... options) {
        java.util.List<String> args = new java.util.ArrayList<>(
                java.util.List.of("-m", model().toString(), "-c", "256", "-np", "1", "-t", "2"));
        args.addAll(java.util.List.of(options));
        return TestServer.start(args.toArray(String[]::new));
    }

    /** The model's template as {@code /v1/models} shows it, after checking that it is {@code name}. */
    private static JsonNode template(TestServer server, String name) throws Exception {
        JsonNode template = JSON.readTree(server.http().get("/v1/models").body())
                .get("data")
                .get(0)
                .get("template");
        assertEquals(name, template.get("name").asText(), template.toString());
        return template;
    }

    private static String prompt(TestServer server) throws Exception {
        return ok(server.http().post("/apply-template", """
                {"messages": [{"role": "user", "content": "Hi"}]}
                """)).get("prompt").asText();
    }

    @Test
    void aTemplateFileReplacesTheModelsOwn() throws Exception {
        Path file = Files.writeString(work.resolve("custom.jinja"), CUSTOM);
        try (TestServer server = serve("--chat-template-file", file.toString())) {
            template(server, "generic");
            assertEquals("<<user>>Hi<<assistant>>", prompt(server));
        }
        // a family's own official template in the file: that family renders it, as if the GGUF carried it
        Path qwen3 = Path.of(System.getProperty("forge.llama.home"), "src/models/templates/Qwen-Qwen3-0.6B.jinja");
        try (TestServer server = serve("--chat-template-file", qwen3.toString())) {
            template(server, "qwen3");
            assertEquals("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n", prompt(server));
        }
    }

    @Test
    void aTemplateNameIsTheTemplateOfEveryModel() throws Exception {
        try (TestServer server = serve("--chat-template", "qwen2.5")) {
            assertEquals("configured", template(server, "qwen2.5").get("rule").asText());
        }
    }

    @Test
    void aLlamaServerBuiltinNameRendersLlamaCppsFormat() throws Exception {
        try (TestServer server = serve("--chat-template", "llama2")) {
            assertEquals("generic", template(server, "llama2").get("family").asText());
            // llama.cpp's LLM_CHAT_TEMPLATE_LLAMA_2: the system message as plain text in the first [INST], no
            // generation prompt
            assertEquals(
                    "[INST] Be brief.\nHi [/INST]Hello</s>[INST] Bye [/INST]",
                    ok(server.http().post("/apply-template", """
                    {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"},
                                  {"role": "assistant", "content": "Hello"}, {"role": "user", "content": "Bye"}]}
                    """)).get("prompt").asText());
            // another built-in name through the same route, and a name both have: ForgeLM's family wins
            assertEquals(
                    "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
                    ok(server.http().post("/apply-template", """
                            {"template": "llama3", "messages": [{"role": "user", "content": "  Hi "}]}
                            """)).get("prompt").asText());
            // content parts joined with a newline, as llama-server joins them for its built-in formats
            assertEquals(
                    "[INST] a\nb [/INST]",
                    ok(server.http().post("/apply-template", """
                    {"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]}
                    """)).get("prompt").asText());
            JsonNode kimi =
                    JSON.readTree(server.http().get("/v1/templates").body()).get("data");
            java.util.List<String> kimiFamilies = new java.util.ArrayList<>();
            kimi.forEach(v -> {
                if (v.get("name").asText().equals("kimi-k2")) {
                    kimiFamilies.add(v.get("family").asText());
                }
            });
            assertEquals(java.util.List.of("kimi"), kimiFamilies);
        }
    }

    @Test
    void anUnknownTemplateNameStopsTheStartAndListsEveryAcceptedName() {
        forge.api.ForgeException e = org.junit.jupiter.api.Assertions.assertThrows(
                forge.api.ForgeException.class, () -> serve("--chat-template", "llama-2"));
        for (String name : java.util.List.of(
                "'llama-2'", "qwen2.5", "gemma4", "generic", "chatml", "llama2", "mistral-v7-tekken", "solar-open")) {
            assertTrue(e.getMessage().contains(name), e.getMessage());
        }
    }

    @Test
    void modelsInspectShowsTheTemplateAndWhoClaimsIt() throws Exception {
        Path qwen3 = Path.of(System.getProperty("forge.llama.home"), "src/models/templates/Qwen-Qwen3-0.6B.jinja");
        String text = inspect("models", "inspect", model().toString());
        assertTrue(
                text.contains("chat template:  generic, family generic (fallback: no family claimed the model)"), text);
        assertTrue(text.lines().anyMatch(l -> l.trim().startsWith("qwen") && l.contains("none")), text);
        assertTrue(text.contains("renders:        yes"), text);
        assertTrue(
                text.contains("template source (tokenizer.chat_template, 1 lines):\n{{ 'the GGUF template' }}"), text);

        text = inspect("models", "inspect", model().toString(), "--chat-template-file", qwen3.toString());
        assertTrue(
                text.contains(
                        "chat template:  qwen3, family qwen (metadata: tokenizer.chat_template is qwen3's official one)"),
                text);
        assertTrue(text.contains(Files.readString(qwen3)), text);

        Path broken = Files.writeString(work.resolve("broken.jinja"), "x\n{% if %}");
        text = inspect("models", "inspect", model().toString(), "--chat-template-file", broken.toString());
        assertTrue(text.contains("renders:        NO: the model's chat template does not parse: line 2: "), text);
    }

    private static String inspect(String... args) {
        System.setProperty("forge.user.home", work.resolve("user-home").toString());
        StringWriter out = new StringWriter();
        CommandLine cli = ForgeCli.commandLine(args);
        cli.setOut(new PrintWriter(out));
        java.util.List<String> all = new java.util.ArrayList<>(java.util.List.of(args));
        all.addAll(java.util.List.of("--plugins-dir", work.resolve("no-plugins").toString()));
        assertEquals(0, cli.execute(all.toArray(String[]::new)), out.toString());
        return out.toString();
    }
}
