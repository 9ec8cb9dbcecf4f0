package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class ApiKeysTest {

    private final ApiKeys keys = new ApiKeys(List.of("k1", "k2"));

    @Test
    void aBearerTokenOrAnXApiKeyIsAccepted() {
        assertDoesNotThrow(() -> keys.check("Bearer k1", null));
        assertDoesNotThrow(() -> keys.check(null, "k2"));
        assertDoesNotThrow(() -> keys.check("bearer k2", null));
        // Anthropic's SDK sends x-api-key; a proxy may add its own Authorization: either key passes.
        assertDoesNotThrow(() -> keys.check("Bearer other", "k1"));
    }

    @Test
    void wrongOrMissingKeysAre401() {
        assertEquals(
                401, assertThrows(ApiError.class, () -> keys.check(null, null)).status());
        assertEquals(
                401,
                assertThrows(ApiError.class, () -> keys.check("Bearer k3", "k4"))
                        .status());
        assertEquals(
                401,
                assertThrows(ApiError.class, () -> keys.check("k1", null)).status(),
                "a bare key is not a bearer token");
        assertEquals(
                401, assertThrows(ApiError.class, () -> keys.check(null, " ")).status());
    }

    @Test
    void noKeysLetEveryoneIn() {
        assertDoesNotThrow(() -> new ApiKeys(List.of()).check(null, null));
    }
}
