package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
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
 * greedy continuation. Tagged {@code peer}: the build leaves it out; {@code bench/peer-tests.sh}
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
        compare("gemma3", "gemma");
    }

    @Test
    void anMlpProjectorGivesLlamaServersPromptTokensAndGreedyContinuation() throws Exception {
        compare("mlp", "qwen");
    }

    private void compare(String projector, String family) throws Exception {
        Path model = TestServer.model("vision-peer-" + family, SynthSpec.tiny(family));
        Path mmproj = dir.resolve("mmproj-" + projector + ".gguf");
        SynthProjector.tiny(projector, 64).write(mmproj);
        Path template = dir.resolve("chatml.jinja");
        Files.writeString(template, TEMPLATE);
        List<String> common = List.of(
                "-m",
                model.toString(),
                "--mmproj",
                mmproj.toString(),
                "--chat-template-file",
                template.toString(),
                "-c",
                "1024",
                "-np",
                "1",
                "-t",
                "2");
        List<String> theirsArgs = new ArrayList<>(common);
        theirsArgs.add("--jinja");
        try (PeerServer peer = PeerServer.start(dir, theirsArgs);
                TestServer forge = TestServer.start(common.toArray(String[]::new))) {
            Http theirs = peer.healthy();
            for (long seed : new long[] {21, 22}) {
                String image =
                        "data:image/png;base64," + Base64.getEncoder().encodeToString(SynthImages.png(48, 40, seed));
                String body = "{\"model\": \"vision-peer-" + family
                        + "\", \"max_tokens\": 12, \"temperature\": 0, \"ignore_eos\": true,"
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
                assertEquals(
                        their.get("usage").get("prompt_tokens").asInt(),
                        ours.get("usage").get("prompt_tokens").asInt(),
                        projector + ": prompt tokens, the image's embeddings included");
                assertEquals(
                        their.get("choices")
                                .get(0)
                                .get("message")
                                .get("content")
                                .asText(),
                        ours.get("choices").get(0).get("message").get("content").asText(),
                        projector + ": the greedy continuation");
            }
        }
    }
}
