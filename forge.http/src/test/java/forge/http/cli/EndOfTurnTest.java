package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.lib.gguf.GgufValue;
import forge.lib.gguf.synth.SynthSpec;
import forge.lib.gguf.synth.SynthVocabulary;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The template's end-of-turn text stops generation although the model's vocabulary does not end
 * generation there: its EOS is {@code <|endoftext|>} and it has no {@code <|im_end|>} token. (llama.cpp
 * marks any token spelled {@code <|im_end|>} as end-of-generation by its text, so the case a
 * backend cannot catch is the marker arriving as text inside another token.) The model's one
 * token {@code x<|im_end|>} is forced with {@code logit_bias}; only the qwen2.5 template's
 * {@code endOfTurn} makes that a stop.
 */
class EndOfTurnTest {

    private static final String MARKER_TOKEN = "x<|im_end|>";

    @AutoClose
    static TestServer server;

    static Http http;
    static int markerId;
    static int plainId;

    @BeforeAll
    static void start() {
        SynthSpec spec = SynthSpec.tiny("qwen");
        SynthVocabulary vocab = SynthVocabulary.generate((SynthSpec.Generated) spec.vocabulary());
        List<String> tokens = new ArrayList<>(vocab.tokens());
        List<Integer> types = new ArrayList<>(vocab.tokenTypes());
        markerId = tokens.indexOf("<|im_end|>");
        int eos = tokens.indexOf("<|endoftext|>");
        plainId = tokens.indexOf("hello");
        assertTrue(markerId > 0 && eos > 0 && plainId > 0);
        // The end-of-turn marker becomes text inside an ordinary token: not EOS, not EOT, not control.
        tokens.set(markerId, MARKER_TOKEN);
        types.set(markerId, SynthVocabulary.NORMAL);
        Path model = TestServer.model("eot-qwen", spec, w -> {
            w.put("tokenizer.ggml.tokens", GgufValue.strings(tokens));
            w.put(
                    "tokenizer.ggml.token_type",
                    GgufValue.int32s(types.stream().mapToInt(Integer::intValue).toArray()));
            w.put("tokenizer.ggml.eos_token_id", GgufValue.uint32(eos));
            w.put("tokenizer.ggml.eot_token_id", GgufValue.uint32(eos));
        });
        server = TestServer.serve(model, "--template qwen2.5 -c 512 -np 1 -t 2");
        http = server.http();
    }

    private static JsonNode complete(int biased, boolean stream) throws Exception {
        String body = """
                {"model": "eot-qwen", "max_tokens": 6, "temperature": 0, "logit_bias": {"%d": 100}, "stream": %s,
                 "messages": [{"role": "user", "content": "Hello"}]}
                """.formatted(biased, stream);
        HttpResponse<String> r = http.post("/v1/chat/completions", body);
        assertEquals(200, r.statusCode(), r.body());
        if (!stream) {
            return JSON.readTree(r.body()).get("choices").get(0);
        }
        StringBuilder content = new StringBuilder();
        String finish = null;
        for (String block : r.body().split("\n\n")) {
            String data = block.substring("data: ".length());
            if (data.equals("[DONE]")) {
                break;
            }
            JsonNode choice = JSON.readTree(data).get("choices").get(0);
            if (choice.get("delta").has("content")) {
                content.append(choice.get("delta").get("content").asText());
            }
            if (!choice.get("finish_reason").isNull()) {
                finish = choice.get("finish_reason").asText();
            }
        }
        return JSON.createObjectNode()
                .put("finish_reason", finish)
                .set("message", JSON.createObjectNode().put("content", content.toString()));
    }

    @Test
    void theTemplatesEndOfTurnStopsGenerationWhereTheVocabularyWouldNot() throws Exception {
        for (boolean stream : List.of(false, true)) {
            JsonNode choice = complete(markerId, stream);
            assertEquals("stop", choice.get("finish_reason").asText(), choice.toString());
            String content = choice.get("message").get("content").asText();
            assertEquals("x", content, "the marker is cut, the text before it kept");
            assertFalse(content.contains("<|im_end|>"));
        }
    }

    @Test
    void theForcedModelDoesNotStopOnItsOwn() throws Exception {
        // The contrast: the same bias on an ordinary token runs to max_tokens, so neither the model
        // nor its EOS is what stopped the generation above.
        JsonNode choice = complete(plainId, false);
        assertEquals("length", choice.get("finish_reason").asText(), choice.toString());
        assertEquals("hello".repeat(6), choice.get("message").get("content").asText());
    }
}
