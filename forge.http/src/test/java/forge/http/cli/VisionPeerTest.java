package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import forge.lib.gguf.synth.SynthImages;
import forge.lib.gguf.synth.SynthProjector;
import forge.lib.gguf.synth.SynthSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Side by side with llama.cpp's own {@code llama-server} of the same release (built by
 * {@code bench/run.sh} into {@code ~/.cache/forge/peer/build}), on the same synthetic model and
 * projector files of each projector family and one Jinja chat template given to both
 * ({@code --chat-template-file}): the same image gives the same prompt token count and the same
 * greedy continuation, in a first turn and in the returning turn that reuses its cells. Tagged {@code peer}: the build leaves it out; {@code bench/peer-tests.sh}
 * runs it.
 */
@Tag("peer")
class VisionPeerTest {

    /** ChatML, reading a message's content as a string or as text parts (an image part is its marker). */
    static final String TEMPLATE = """
            {%- for message in messages -%}<|im_start|>{{ message.role }}
            {% if message.content is string %}{{ message.content }}{% else %}{% for part in message.content %}\
            {% if part.type == 'text' %}{{ part.text }}{% endif %}{% endfor %}{% endif %}<|im_end|>
            {% endfor -%}
            {%- if add_generation_prompt -%}<|im_start|>assistant
            {% endif -%}
            """;

    @TempDir
    Path dir;

    @Test
    void aGemma3ProjectorGivesLlamaServersPromptTokensAndGreedyContinuation() throws Exception {
        compare("gemma3", "gemma", SynthSpec.tiny("gemma"));
    }

    @Test
    void anMlpProjectorGivesLlamaServersPromptTokensAndGreedyContinuation() throws Exception {
        compare("mlp", "qwen", SynthSpec.tiny("qwen"));
    }

    /**
     * Images placed by M-RoPE (a {@code qwen2vl} text model and a {@code qwen2vl_merger} projector):
     * the text after the image continues at the image's first position plus its positions, not
     * its embeddings, as llama-server places it, in the first turn and in a returning turn that
     * reuses the image's cells.
     */
    @Test
    void anMRopeProjectorGivesLlamaServersPromptTokensAndGreedyContinuation() throws Exception {
        compare("qwen2vl_merger", "qwen2vl", SynthSpec.tiny("qwen").withArchitecture("qwen2vl"));
    }

    /** Qwen2.5-VL's projector (RMS norms, gated SiLU) before the same M-RoPE text model. */
    @Test
    void aQwen25vlProjectorGivesLlamaServersPromptTokensAndGreedyContinuation() throws Exception {
        compare("qwen2.5vl_merger", "qwen25vl", SynthSpec.tiny("qwen").withArchitecture("qwen2vl"));
    }

    /**
     * The model's own chat template (the synthetic Gemma's, Gemma 2's, which takes strings): the
     * text parts and the image's marker are joined as llama-server joins them, with no line break
     * around the image.
     */
    @Test
    void theModelsOwnGemmaTemplateGivesLlamaServersPromptTokensAndGreedyContinuation() throws Exception {
        compare("gemma3", "gemma-own", SynthSpec.tiny("gemma"), false);
    }

    private void compare(String projector, String name, SynthSpec spec) throws Exception {
        compare(projector, name, spec, true);
    }

    /** {@code chatml}: both servers given {@link #TEMPLATE}, else each renders the model's own. */
    private void compare(String projector, String name, SynthSpec spec, boolean chatml) throws Exception {
        Path model = TestServer.model("vision-peer-" + name, spec);
        Path mmproj = dir.resolve("mmproj-" + projector + ".gguf");
        SynthProjector.tiny(projector, 64).write(mmproj);
        List<String> common = new ArrayList<>(
                List.of("-m", model.toString(), "--mmproj", mmproj.toString(), "-c", "1024", "-np", "1", "-t", "2"));
        if (chatml) {
            Path template = dir.resolve("chatml.jinja");
            Files.writeString(template, TEMPLATE);
            common.addAll(List.of("--chat-template-file", template.toString()));
        }
        List<String> theirsArgs = new ArrayList<>(common);
        theirsArgs.add("--jinja");
        try (PeerServer peer = PeerServer.start(dir, theirsArgs);
                TestServer forge = TestServer.start(common.toArray(String[]::new))) {
            Http theirs = peer.healthy();
            for (long seed : new long[] {21, 22}) {
                String image =
                        "data:image/png;base64," + Base64.getEncoder().encodeToString(SynthImages.png(48, 40, seed));
                String body = "{\"model\": \"vision-peer-" + name
                        + "\", \"max_tokens\": 12, \"temperature\": 0, \"ignore_eos\": true,"
                        + " \"logprobs\": true, \"top_logprobs\": 3,"
                        + " \"messages\": [{\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\":"
                        + " \"Describe this picture: \"}, {\"type\": \"image_url\", \"image_url\": {\"url\": \""
                        + image + "\"}}, {\"type\": \"text\", \"text\": \" in a few words.\"}]}]}";
                JsonNode ours = Http.ok(forge.http().post("/v1/chat/completions", body));
                JsonNode their = Http.ok(theirs.post("/v1/chat/completions", body));
                assertTrue(
                        ours.get("usage").get("prompt_tokens").asInt()
                                > SynthProjector.tiny(projector, 64).tokensPerImage(),
                        ours.toString());
                assertEquals(12, ours.get("usage").get("completion_tokens").asInt(), ours.toString());
                sameTurn(their, ours, projector + ": the first turn, the image's embeddings included");
                // the next turn: its prompt starts with the first one's, image included, which both
                // servers keep in the slot and compute only the rest after
                String said = content(ours);
                String next = body.replace("\"max_tokens\": 12", "\"max_tokens\": 8")
                        .replace(
                                "}]}]}",
                                "}]}, {\"role\": \"assistant\", \"content\": "
                                        + new ObjectMapper().writeValueAsString(said)
                                        + "}, {\"role\": \"user\", \"content\": \"And then?\"}]}");
                JsonNode ours2 = Http.ok(forge.http().post("/v1/chat/completions", next));
                JsonNode their2 = Http.ok(theirs.post("/v1/chat/completions", next));
                sameTurn(their2, ours2, projector + ": the returning turn");
            }
        }
    }

    /**
     * Both servers' answers to one turn agree: the prompt tokens, the greedy continuation and the
     * first token's log-probabilities.
     */
    private static void sameTurn(JsonNode theirs, JsonNode ours, String what) {
        assertEquals(
                theirs.get("usage").get("prompt_tokens").asInt(),
                ours.get("usage").get("prompt_tokens").asInt(),
                what + ": prompt tokens");
        assertEquals(content(theirs), content(ours), what + ": the greedy continuation");
        sameLogprobs(theirs, ours, what);
    }

    private static String content(JsonNode answer) {
        return answer.get("choices").get(0).get("message").get("content").asText();
    }

    /**
     * The first generated token's log-probability and its alternatives' agree to 1e-3. Its
     * distribution is computed right after the prompt, so it depends on every prompt position, the
     * image's included: greedy tokens can survive a small error that the probabilities show (text
     * placed at other positions than llama-server places it, with the M-RoPE pair's sharp
     * attention). Only the first entry is compared: the two servers group the later tokens of a
     * random model's broken UTF-8 into entries differently (llama-server joins a partial byte with
     * the token that follows it), but each gives the first token an entry of its own.
     */
    private static void sameLogprobs(JsonNode theirs, JsonNode ours, String what) {
        JsonNode a = theirs.get("choices").get(0).get("logprobs").get("content").get(0);
        JsonNode b = ours.get("choices").get(0).get("logprobs").get("content").get(0);
        assertEquals(a.get("logprob").asDouble(), b.get("logprob").asDouble(), 1e-3, what + ": " + a + " against " + b);
        JsonNode at = a.get("top_logprobs");
        JsonNode bt = b.get("top_logprobs");
        assertEquals(at.size(), bt.size(), what + ": " + a + " against " + b);
        for (int j = 0; j < at.size(); j++) {
            assertEquals(
                    at.get(j).get("logprob").asDouble(),
                    bt.get(j).get("logprob").asDouble(),
                    1e-3,
                    what + ": alternative " + j + " of the first token: " + a + " against " + b);
        }
    }
}
