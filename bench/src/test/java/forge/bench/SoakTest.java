package forge.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class SoakTest {

    @Test
    void aWholeAnswerNeedsAFinishReasonAndItsField() {
        assertEquals(
                "",
                Soak.checkWhole(
                        200,
                        "{\"choices\": [{\"finish_reason\": \"length\", \"message\": {\"content\": \"x\"}}]}",
                        "message"));
        assertEquals(
                "", Soak.checkWhole(200, "{\"choices\": [{\"finish_reason\": \"stop\", \"text\": \"x\"}]}", "text"));
        assertEquals(
                "",
                Soak.checkWhole(
                        200,
                        "{\"choices\": [{\"finish_reason\": \"tool_calls\", \"message\": {\"tool_calls\": [{}]}}]}",
                        "message"));
        assertTrue(
                Soak.checkWhole(200, "{\"choices\": [{\"finish_reason\": \"tool_calls\", \"message\": {}}]}", "message")
                        .contains("without tool_calls"));
        assertTrue(Soak.checkWhole(200, "{\"choices\": [{\"finish_reason\": null, \"text\": \"x\"}]}", "text")
                .startsWith("no finish_reason"));
        assertTrue(Soak.checkWhole(503, "{}", "message").startsWith("HTTP 503"));
        assertTrue(Soak.checkWhole(200, "<html>", "message").startsWith("not JSON"));
    }

    @Test
    void aStreamEndsWithAFinishReasonThenDone() {
        String chunk = "{\"choices\": [{\"delta\": {\"content\": \"a\"}, \"finish_reason\": null}]}";
        String last = "{\"choices\": [{\"delta\": {}, \"finish_reason\": \"length\"}]}";
        assertEquals("", Soak.checkStream(List.of(chunk, last, "[DONE]")));
        assertTrue(Soak.checkStream(List.of(chunk, "[DONE]")).startsWith("no finish_reason"));
        assertTrue(Soak.checkStream(List.of(chunk, last)).contains("[DONE]"));
        assertTrue(Soak.checkStream(List.of(chunk, "{\"error\": {\"message\": \"boom\"}}", "[DONE]"))
                .startsWith("an error event"));
    }

    @Test
    void aBadBodyIsA400WithAnErrorMessage() {
        assertEquals(
                "", Soak.checkRefused(400, "{\"error\": {\"message\": \"no\", \"type\": \"invalid_request_error\"}}"));
        assertTrue(Soak.checkRefused(200, "{}").contains("got HTTP 200"));
        assertTrue(Soak.checkRefused(500, "boom").contains("got HTTP 500"));
        assertTrue(Soak.checkRefused(400, "<html>").contains("not JSON"));
    }
}
