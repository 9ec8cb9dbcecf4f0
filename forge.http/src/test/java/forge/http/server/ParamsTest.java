package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ParamsTest {

    private static JsonNode body(String json) {
        return Json.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    private static String param(Runnable r) {
        ApiError e = assertThrows(ApiError.class, r::run);
        assertEquals(400, e.status());
        return e.toJson().get("error").get("param").asText();
    }

    @Test
    void integersOutsideTheirTypeAreRefusedAsWritten() {
        assertEquals(
                "max_tokens",
                param(() -> Params.integer(
                        body("{\"max_tokens\": 18446744073709551621}"), "max_tokens", -1, 1, Integer.MAX_VALUE)));
        assertEquals(
                "max_tokens",
                param(() ->
                        Params.integer(body("{\"max_tokens\": 4294967297}"), "max_tokens", -1, 1, Integer.MAX_VALUE)));
        assertEquals(
                "max_tokens",
                param(() -> Params.integer(body("{\"max_tokens\": 1e30}"), "max_tokens", -1, 1, Integer.MAX_VALUE)));
        assertEquals("n", param(() -> Params.integer(body("{\"n\": 1.5}"), "n", 1, 1, 16)));
        assertEquals("seed", param(() -> Params.int64(body("{\"seed\": 18446744073709551616}"), "seed", -1)));
        assertEquals("seed", param(() -> Params.int64(body("{\"seed\": -9223372036854775809}"), "seed", -1)));
        assertEquals(Long.MAX_VALUE, Params.int64(body("{\"seed\": 9223372036854775807}"), "seed", -1));
        assertEquals(4, Params.integer(body("{\"n\": 4.0}"), "n", 1, 1, 16));
        assertEquals(7, Params.integer(body("{\"n\": null}"), "n", 7, 1, 16));
    }

    @Test
    void typesAreCheckedAndNamedByPath() {
        assertEquals(
                "stream_options.include_usage",
                param(() -> Params.bool(body("{\"include_usage\": 1}"), "include_usage", "stream_options", false)));
        assertEquals("user", param(() -> Requests.model(body("{\"user\": 42}"))));
        assertEquals("user", param(() -> Requests.model(body("{\"user\": {\"id\": 1}}"))));
        assertEquals("model", param(() -> Requests.model(body("{\"model\": null}"))));
        assertEquals("model", param(() -> Requests.model(body("{\"model\": \"" + "m".repeat(600) + "\"}"))));
        assertEquals("", Requests.model(body("{\"user\": null}")));
        assertEquals(
                "temperature", param(() -> Params.number(body("{\"temperature\": \"hot\"}"), "temperature", 1, 0, 2)));
    }

    @Test
    void stopStringsAreBoundedInNumberAndLength() {
        String many =
                "[" + String.join(",", java.util.Collections.nCopies(GenerationParams.MAX_STOPS + 1, "\"x\"")) + "]";
        assertEquals(
                "stop",
                param(() ->
                        GenerationParams.stops(body("{\"stop\": " + many + "}").get("stop"), "stop")));
        String longOne = "\"" + "y".repeat(GenerationParams.MAX_STOP_LENGTH + 1) + "\"";
        assertEquals(
                "stop",
                param(() -> GenerationParams.stops(
                        body("{\"stop\": " + longOne + "}").get("stop"), "stop")));
        assertEquals(
                "stop_sequences",
                param(() -> GenerationParams.stops(
                        body("{\"s\": [" + longOne + "]}").get("s"), "stop_sequences")));
        String most = "[" + String.join(",", java.util.Collections.nCopies(GenerationParams.MAX_STOPS, "\"x\"")) + "]";
        assertEquals(
                GenerationParams.MAX_STOPS,
                GenerationParams.stops(body("{\"stop\": " + most + "}").get("stop"), "stop")
                        .size());
        assertEquals(
                List.of("a", "b"),
                GenerationParams.stops(body("{\"stop\": [\"a\", \"\", \"b\"]}").get("stop"), "stop"));
    }
}
