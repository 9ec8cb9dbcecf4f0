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
     * Checks an {@code Authorization} header value.
     *
     * @param authorization the header, or null when absent
     * @throws ApiError 401 when keys are configured and the header does not carry one of them
     */
    void check(String authorization) {
        if (open()) {
            return;
        }
        if (authorization == null || authorization.isBlank()) {
            throw unauthorized("no API key was given; send it as 'Authorization: Bearer KEY'");
        }
        String presented = authorization.regionMatches(true, 0, "Bearer ", 0, 7) ? authorization.substring(7).trim() : "";
        byte[] hash = sha256(presented);
        boolean match = false;
        for (byte[] known : hashes) {
            match |= MessageDigest.isEqual(known, hash); // no early exit: every key costs the same
        }
        if (!match || presented.isEmpty()) {
            throw unauthorized("the API key is not valid");
        }
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
