package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.lib.gguf.synth.SynthSpec;
import java.nio.file.Path;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code suffix} on {@code /v1/completions} with a model that has fill-in-the-middle tokens: a tiny
 * model carrying StarCoder's real vocabulary (llama.cpp's vocab-only file), which has
 * {@code <fim_prefix>}, {@code <fim_suffix>} and {@code <fim_middle>}.
 */
class FillInTheMiddleTest {

    @AutoClose
    static TestServer server;

    static Http http;

    @BeforeAll
    static void start() {
        Path model = TestServer.model(
                "tiny-fim",
                SynthSpec.tiny("qwen")
                        .withTiedEmbeddings(true)
                        .withVocabulary(new SynthSpec.CopiedFrom(
                                SynthSpec.llamaModelsDir().resolve("ggml-vocab-starcoder.gguf"))));
        // A 49,152-token vocabulary: small batches keep the logits buffer (vocab x batch floats) small.
        server = TestServer.serve(model, "--alias fim -c 512 -np 1 -b 32 -ub 32 -t 2");
        http = server.http();
    }

    @Test
    void aSuffixWrapsThePromptInTheModelsFimTokens() throws Exception {
        String prefix = "def add(a, b):\n    return ";
        String suffix = "\n\nprint(add(1, 2))\n";
        int prefixTokens = ok(http.post("/tokenize", JSON.writeValueAsString(java.util.Map.of("content", prefix))))
                .get("tokens")
                .size();
        int suffixTokens = ok(http.post("/tokenize", JSON.writeValueAsString(java.util.Map.of("content", suffix))))
                .get("tokens")
                .size();
        JsonNode c = ok(http.post(
                "/v1/completions",
                JSON.writeValueAsString(java.util.Map.of(
                        "model", "fim", "prompt", prefix, "suffix", suffix, "max_tokens", 4, "temperature", 0))));
        // <fim_prefix> prefix <fim_suffix> suffix <fim_middle>: the model writes what goes between.
        assertEquals(
                prefixTokens + suffixTokens + 3,
                c.get("usage").get("prompt_tokens").asInt(),
                c.toString());
        assertTrue(c.get("choices").get(0).get("text").isTextual());
        JsonNode plain = ok(http.post(
                "/v1/completions",
                JSON.writeValueAsString(
                        java.util.Map.of("model", "fim", "prompt", prefix, "max_tokens", 4, "temperature", 0))));
        assertEquals(
                prefixTokens, plain.get("usage").get("prompt_tokens").asInt(), "no suffix, no FIM tokens: " + plain);
    }
}
