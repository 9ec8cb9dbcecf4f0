package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import forge.api.ForgeException;
import forge.runtime.synth.SynthSpec;
import forge.runtime.synth.SyntheticModels;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code --template MODEL=NAME}: a chat template configured for one model of several. */
class PerModelTemplateTest {

    @TempDir
    Path work;

    @Test
    void oneModelGetsItsConfiguredTemplateAndTheOtherKeepsItsClaim() throws Exception {
        System.setProperty("forge.user.home", work.resolve("user-home").toString());
        Path qwen = work.resolve("tiny-qwen.gguf");
        Path llama = work.resolve("tiny-llama.gguf");
        SyntheticModels.write(SynthSpec.tiny("qwen"), qwen);
        SyntheticModels.write(SynthSpec.tiny("llama"), llama);
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).parseArgs("-m", qwen.toString(), "-m", llama.toString(), "--template", "TINY-LLAMA=generic",
                "--port", "0", "-c", "1024", "-t", "2", "--plugins-dir", work.resolve("no-plugins").toString());
        try (ServeCommand.Running server = serve.start()) {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.port() + "/v1/models")).build(), HttpResponse.BodyHandlers.ofString());
            Map<String, JsonNode> templates = new HashMap<>();
            new ObjectMapper().readTree(r.body()).get("data").forEach(m -> templates.put(m.get("id").asText(), m.get("template")));
            assertEquals("generic", templates.get("tiny-llama").get("name").asText(), r.body());
            assertEquals("configured", templates.get("tiny-llama").get("rule").asText());
            assertEquals("qwen2.5", templates.get("tiny-qwen").get("name").asText(), r.body());
            assertEquals("metadata", templates.get("tiny-qwen").get("rule").asText());
        }
    }

    @Test
    void aTemplateForAModelThatIsNotServedIsAnError() throws Exception {
        System.setProperty("forge.user.home", work.resolve("user-home").toString());
        Path qwen = work.resolve("tiny-qwen.gguf");
        SyntheticModels.write(SynthSpec.tiny("qwen"), qwen);
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).parseArgs("-m", qwen.toString(), "--template", "nobody=generic", "--port", "0",
                "--plugins-dir", work.resolve("no-plugins").toString());
        ForgeException e = assertThrows(ForgeException.class, serve::start);
        assertTrue(e.getMessage().contains("no model answers to 'nobody'"), e.getMessage());
    }
}
