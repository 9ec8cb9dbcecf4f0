package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import forge.runtime.synth.SynthSpec;
import forge.runtime.synth.SyntheticModels;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code suffix} on {@code /v1/completions} with a model that has fill-in-the-middle tokens: a tiny
 * model carrying StarCoder's real vocabulary (llama.cpp's vocab-only file), which has
 * {@code <fim_prefix>}, {@code <fim_suffix>} and {@code <fim_middle>}.
 */
class FillInTheMiddleTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path work;

    static ServeCommand.Running server;
    static HttpClient client;
    static String base;

    @BeforeAll
    static void start() throws Exception {
        System.setProperty("forge.user.home", work.resolve("user-home").toString());
        Path model = work.resolve("tiny-fim.gguf");
        SyntheticModels.write(SynthSpec.tiny("qwen").withTiedEmbeddings(true)
                .withVocabulary(new SynthSpec.CopiedFrom(SynthSpec.llamaModelsDir().resolve("ggml-vocab-starcoder.gguf"))), model);
        ServeCommand serve = new ServeCommand();
        // A 49,152-token vocabulary: small batches keep the logits buffer (vocab x batch floats) small.
        new CommandLine(serve).parseArgs("-m", model.toString(), "--alias", "fim", "--port", "0", "-c", "512", "-b", "32",
                "-ub", "32", "-t", "2", "--plugins-dir", work.resolve("no-plugins").toString());
        server = serve.start();
        client = HttpClient.newHttpClient();
        base = "http://127.0.0.1:" + server.port();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    static JsonNode post(String path, String body) throws Exception {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }

    @Test
    void aSuffixWrapsThePromptInTheModelsFimTokens() throws Exception {
        String prefix = "def add(a, b):\n    return ";
        String suffix = "\n\nprint(add(1, 2))\n";
        int prefixTokens = post("/tokenize", JSON.writeValueAsString(java.util.Map.of("content", prefix))).get("tokens").size();
        int suffixTokens = post("/tokenize", JSON.writeValueAsString(java.util.Map.of("content", suffix))).get("tokens").size();
        JsonNode c = post("/v1/completions", JSON.writeValueAsString(java.util.Map.of("model", "fim", "prompt", prefix,
                "suffix", suffix, "max_tokens", 4, "temperature", 0)));
        // <fim_prefix> prefix <fim_suffix> suffix <fim_middle>: the model writes what goes between.
        assertEquals(prefixTokens + suffixTokens + 3, c.get("usage").get("prompt_tokens").asInt(), c.toString());
        assertTrue(c.get("choices").get(0).get("text").isTextual());
        JsonNode plain = post("/v1/completions", JSON.writeValueAsString(java.util.Map.of("model", "fim", "prompt", prefix,
                "max_tokens", 4, "temperature", 0)));
        assertEquals(prefixTokens, plain.get("usage").get("prompt_tokens").asInt(), "no suffix, no FIM tokens: " + plain);
    }
}
