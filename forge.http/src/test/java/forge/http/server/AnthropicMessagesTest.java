package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class AnthropicMessagesTest {

    @Test
    void errorsTakeAnthropicsShapeAndTypes() {
        assertEquals(
                "{\"type\":\"error\",\"error\":{\"type\":\"not_found_error\",\"message\":\"no model\"}}",
                AnthropicMessages.error(ApiError.notFound("model_not_found", "no model"))
                        .toString());
        assertEquals("invalid_request_error", AnthropicMessages.errorType(400));
        assertEquals("authentication_error", AnthropicMessages.errorType(401));
        assertEquals("permission_error", AnthropicMessages.errorType(403));
        assertEquals("request_too_large", AnthropicMessages.errorType(413));
        assertEquals("rate_limit_error", AnthropicMessages.errorType(429));
        assertEquals("api_error", AnthropicMessages.errorType(500));
        assertEquals("overloaded_error", AnthropicMessages.errorType(503));
    }
}
