package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import forge.lib.gguf.synth.SynthSpec;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code /props} shows the backend that serves, its devices and their memory, where the model's
 * layers went, and every candidate's verdict; the CPU backend accepts {@code -ngl} and the other
 * GPU flags and ignores them.
 */
class BackendPropsEndToEndTest {

    @Test
    void propsShowsTheBackendItsDevicesTheOffloadAndEveryCandidate() throws Exception {
        Path model = TestServer.model("tiny", SynthSpec.tiny("qwen"));
        try (TestServer server = TestServer.serve(model, "-c 512 -np 1 -ngl 99 --split-mode layer --main-gpu 0")) {
            var r = server.http().get("/props");
            assertEquals(200, r.statusCode(), r.body());
            JsonNode b = new ObjectMapper().readTree(r.body()).get("backend");
            assertEquals("llama.cpp-cpu", b.get("name").asText(), b.toString());
            assertTrue(b.get("devices").size() >= 1, b.toString());
            assertEquals("cpu", b.get("devices").get(0).get("type").asText(), b.toString());
            assertTrue(b.get("devices").get(0).get("memory_total").asLong() > 0, b.toString());
            assertEquals(0, b.get("offload").get("n_gpu_layers").asInt(), b.toString());
            boolean cpuChosen = false;
            for (JsonNode c : b.get("candidates")) {
                if (c.get("name").asText().equals("llama.cpp-cpu")) {
                    cpuChosen = c.get("chosen").asBoolean() && c.get("usable").asBoolean();
                }
            }
            assertTrue(cpuChosen, b.toString());
        }
    }
}
