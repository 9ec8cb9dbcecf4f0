package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import forge.lib.gguf.synth.SynthSpec;
import forge.lib.gguf.synth.SyntheticModels;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Side by side with llama.cpp's own {@code llama-server} of the same release (the peer that
 * {@code bench/run.sh} builds into {@code ~/.cache/forge/peer/build}): on the same synthetic model
 * and adapter files, the same greedy output with the adapter at its start scale
 * ({@code --lora-scaled FILE:0.5}), at a scale a request gives, and with none. Tagged {@code peer}:
 * the build leaves it out (CI cannot build the peer in its time); {@code bench/peer-tests.sh} runs it.
 */
@Tag("peer")
class LoraPeerTest {

    @TempDir
    Path dir;

    @Test
    void theSameGreedyOutputAsLlamaServerWithTheAdapterAtEachScale() throws Exception {
        SynthSpec spec = SynthSpec.tiny("qwen");
        Path model = TestServer.model("lora-peer-base", spec);
        Path adapter = dir.resolve("lora-peer.gguf");
        SyntheticModels.writeLora(spec, 8, 8f, 3, adapter);
        List<String> common =
                List.of("-m", model.toString(), "--lora-scaled", adapter + ":0.5", "-c", "1024", "-np", "1", "-t", "2");
        try (PeerServer peer = PeerServer.start(dir, common);
                TestServer forge = TestServer.start(common.toArray(String[]::new))) {
            Http theirs = peer.healthy();
            String body = "{\"prompt\":\"Once upon a time, in a land far away,\",\"max_tokens\":24,\"temperature\":0,"
                    + "\"ignore_eos\":true,\"cache_prompt\":false";
            String[] lists = {
                "",
                ",\"lora\":[{\"id\":0,\"scale\":1}]",
                ",\"lora\":[{\"id\":0,\"scale\":0.25}]",
                ",\"lora\":[{\"id\":0,\"scale\":0}]",
                ",\"lora\":[]"
            };
            String[] ours = new String[lists.length];
            for (int i = 0; i < lists.length; i++) {
                String request = body + lists[i] + "}";
                ours[i] = text(forge.http(), request);
                assertEquals(text(theirs, request), ours[i], "lora" + lists[i]);
            }
            assertNotEquals(ours[3], ours[0], "the adapter changes the output");
            assertNotEquals(ours[0], ours[1], "and so does its scale");
            assertEquals(ours[0], ours[4], "an empty list is no list");
        }
    }

    private static String text(Http http, String body) throws Exception {
        return Http.ok(http.post("/v1/completions", body))
                .get("choices")
                .get(0)
                .get("text")
                .asText();
    }
}
