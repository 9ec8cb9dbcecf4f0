package forge.http.server;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;

/**
 * Which browser origins may call the API. Local pages (http or https on {@code localhost},
 * {@code 127.0.0.1} or {@code [::1]}, any port) are allowed by default, since the server is a
 * local one and its web clients are local too; {@code --cors-origin} adds others, {@code *} all.
 * Any other origin gets no CORS headers at all, so the browser keeps the answer from the page.
 */
final class CorsPolicy {

    static final String ALLOWED_METHODS = "GET, POST, DELETE, OPTIONS";
    /** Sent when a preflight names no headers; SDKs add their own, which a preflight echoes. */
    static final String DEFAULT_HEADERS = "Authorization, Content-Type, x-api-key, anthropic-version, anthropic-beta";

    private final Set<String> extra;
    private final boolean any;

    CorsPolicy(List<String> origins) {
        this.any = origins.contains("*");
        this.extra = origins.stream().map(CorsPolicy::normalize).collect(Collectors.toUnmodifiableSet());
    }

    boolean allowed(String origin) {
        if (origin == null || origin.isBlank()) {
            return false;
        }
        return any || isLocal(origin) || extra.contains(normalize(origin));
    }

    static boolean isLocal(String origin) {
        try {
            URI uri = new URI(origin);
            String scheme = uri.getScheme();
            String host = uri.getHost();
            if (scheme == null
                    || host == null
                    || uri.getRawPath() != null && !uri.getRawPath().isEmpty()) {
                return false;
            }
            return ("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))
                    && Set.of("localhost", "127.0.0.1", "[::1]").contains(host.toLowerCase(Locale.ROOT));
        } catch (URISyntaxException e) {
            return false;
        }
    }

    private static String normalize(String origin) {
        String o = origin.trim().toLowerCase(Locale.ROOT);
        return o.endsWith("/") ? o.substring(0, o.length() - 1) : o;
    }

    /** Adds the headers of an allowed origin's actual (non-preflight) request. */
    void decorate(String origin, HttpFields.Mutable headers) {
        headers.add(HttpHeader.VARY, "Origin");
        if (!allowed(origin)) {
            return;
        }
        headers.put(HttpHeader.ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.put(
                HttpHeader.ACCESS_CONTROL_EXPOSE_HEADERS, "X-Forge-Ignored-Params, X-Forge-Max-Tokens, Retry-After");
    }

    /** Adds the answer to a preflight; nothing for an origin that is not allowed. */
    void preflight(String origin, String requestedHeaders, HttpFields.Mutable headers) {
        decorate(origin, headers);
        if (!allowed(origin)) {
            return;
        }
        headers.put(HttpHeader.ACCESS_CONTROL_ALLOW_METHODS, ALLOWED_METHODS);
        // Echo what the page asked for (SDKs send their own x-* headers), never less than the defaults.
        headers.put(
                HttpHeader.ACCESS_CONTROL_ALLOW_HEADERS,
                requestedHeaders == null || requestedHeaders.isBlank()
                        ? DEFAULT_HEADERS
                        : DEFAULT_HEADERS + ", " + requestedHeaders);
        headers.put(HttpHeader.ACCESS_CONTROL_MAX_AGE, "600");
    }
}
