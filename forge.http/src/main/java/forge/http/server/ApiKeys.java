package forge.http.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * The API keys a client may present. Keys are kept only as SHA-256 hashes, and a presented key
 * is compared with every one of them in constant time ({@link MessageDigest#isEqual}): the time
 * an answer takes says nothing about how much of a key was right. Hashing first makes the
 * compared lengths equal, so not even a key's length leaks.
 */
final class ApiKeys {

    private final List<byte[]> hashes;

    ApiKeys(List<String> keys) {
        this.hashes = keys.stream().map(ApiKeys::sha256).toList();
    }

    /** True when no key is configured: every request is allowed. */
    boolean open() {
        return hashes.isEmpty();
    }

    /**
     * Checks the credentials a request presents: OpenAI's {@code Authorization: Bearer KEY} or
     * Anthropic's {@code x-api-key: KEY}, on every route alike (clients send the one of their API).
     * A request passes when one of them carries a configured key.
     *
     * @param authorization the {@code Authorization} header, or null when absent
     * @param apiKey        the {@code x-api-key} header, or null when absent
     * @throws ApiError 401 when keys are configured and neither header carries one of them
     */
    void check(String authorization, String apiKey) {
        if (open()) {
            return;
        }
        boolean bearer = authorization != null && !authorization.isBlank();
        boolean header = apiKey != null && !apiKey.isBlank();
        if (!bearer && !header) {
            throw unauthorized("no API key was given; send it as 'Authorization: Bearer KEY' or 'x-api-key: KEY'");
        }
        // Both are always hashed and compared, so the time taken says nothing about which one matched.
        boolean match = matches(
                bearer && authorization.regionMatches(true, 0, "Bearer ", 0, 7)
                        ? authorization.substring(7).trim()
                        : "");
        match |= matches(header ? apiKey.trim() : "");
        if (!match) {
            throw unauthorized("the API key is not valid");
        }
    }

    /** Whether {@code presented} is a configured key; the empty string never is. */
    private boolean matches(String presented) {
        byte[] hash = sha256(presented);
        boolean match = false;
        for (byte[] known : hashes) {
            match |= MessageDigest.isEqual(known, hash); // no early exit: every key costs the same
        }
        return match && !presented.isEmpty();
    }

    private static ApiError unauthorized(String message) {
        return new ApiError(401, "invalid_request_error", "invalid_api_key", null, message);
    }

    private static byte[] sha256(String key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
