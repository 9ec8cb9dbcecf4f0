package forge.http.cli;

import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.lib.gguf.synth.SynthSpec;
import org.junit.jupiter.api.Test;

/**
 * {@code forge serve -m FILE} with no {@code -c} and no {@code -np}: two slots, each with the
 * model's training context (a small model on any machine fits), and {@code /props} says why.
 */
class DefaultContextEndToEndTest {

    @Test
    void eachDefaultSlotGetsTheTrainingContextAndPropsSaysWhy() throws Exception {
        try (TestServer server = TestServer.serve(
                TestServer.model("tiny-qwen-2k", SynthSpec.tiny("qwen").withContextLength(2048)), "-t 2")) {
            JsonNode props = ok(server.http().get("/props"));
            assertEquals(2, props.get("total_slots").asInt());
            assertEquals(
                    2048, props.get("default_generation_settings").get("n_ctx").asInt(), props.toString());
            assertEquals(4096, props.get("n_ctx").asInt());
            JsonNode runtime = props.get("runtime");
            assertEquals("auto", runtime.get("n_ctx_source").asText());
            assertTrue(
                    runtime.get("n_ctx_reason").asText().contains("training context (2048) per slot"),
                    runtime.toString());
            assertTrue(runtime.get("n_ctx_reason").asText().contains("bytes/token"), runtime.toString());
            assertTrue(runtime.get("slots_reason").asText().startsWith("-np auto: 2 slots"), runtime.toString());
        }
        try (TestServer server = TestServer.serve(
                TestServer.model("tiny-qwen-2k", SynthSpec.tiny("qwen").withContextLength(2048)),
                "-t 2 -c 1024 -np 4")) {
            JsonNode runtime = ok(server.http().get("/props")).get("runtime");
            assertEquals("set", runtime.get("n_ctx_source").asText());
            assertEquals(
                    "-c 1024 shared by 4 slot(s)", runtime.get("n_ctx_reason").asText());
            assertEquals("-np 4", runtime.get("slots_reason").asText());
            assertEquals(256, runtime.get("n_ctx_slot").asInt());
        }
    }
}
