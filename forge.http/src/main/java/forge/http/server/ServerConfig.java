package forge.http.server;

import java.util.List;
import java.util.Objects;

/**
 * Where and how the HTTP server listens, and whom it answers.
 *
 * @param host          the address to bind ({@code 127.0.0.1} by default: local only)
 * @param port          the port; 0 picks a free one
 * @param bodyLimit     the largest request body accepted, in bytes (larger ones get 413)
 * @param apiKeys       keys a client must present as {@code Authorization: Bearer KEY}; empty: no key needed
 * @param corsOrigins   browser origins allowed besides the local ones ({@code *} allows any)
 * @param strict        refuse (400) a request with a parameter that would have no effect, instead
 *                      of naming it in {@code X-Forge-Ignored-Params}
 * @param keepAliveMillis how long a stream may be silent (a long prefill) before an SSE comment
 *                      keeps proxies and clients from timing out
 * @param allowedHosts  {@code Host} names answered besides loopback ones while bound to a loopback
 *                      address ({@code .domain} for a domain and its subdomains, {@code *} for any)
 * @param imageUrls     whether and how image URLs in requests are fetched (off by default)
 */
public record ServerConfig(
        String host,
        int port,
        long bodyLimit,
        List<String> apiKeys,
        List<String> corsOrigins,
        boolean strict,
        long keepAliveMillis,
        List<String> allowedHosts,
        ImageUrls imageUrls) {

    /** The default body limit: 16 MiB. */
    public static final long DEFAULT_BODY_LIMIT = 16L * 1024 * 1024;

    public ServerConfig {
        Objects.requireNonNull(host);
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0 to 65535: " + port);
        }
        if (bodyLimit < 1024) {
            throw new IllegalArgumentException("body limit is too small: " + bodyLimit);
        }
        apiKeys = List.copyOf(apiKeys);
        for (String key : apiKeys) {
            if (key.isBlank()) {
                throw new IllegalArgumentException("an API key is empty");
            }
        }
        corsOrigins = List.copyOf(corsOrigins);
        allowedHosts = List.copyOf(allowedHosts);
        Objects.requireNonNull(imageUrls);
        if (keepAliveMillis < 1) {
            throw new IllegalArgumentException("keep-alive interval must be positive: " + keepAliveMillis);
        }
    }

    public ServerConfig(String host, int port, long bodyLimit) {
        this(host, port, bodyLimit, List.of(), List.of(), false, 5_000, List.of(), ImageUrls.DEFAULTS);
    }

    public static ServerConfig of(String host, int port) {
        return new ServerConfig(host, port, DEFAULT_BODY_LIMIT);
    }

    public ServerConfig withBodyLimit(long limit) {
        return new ServerConfig(
                host, port, limit, apiKeys, corsOrigins, strict, keepAliveMillis, allowedHosts, imageUrls);
    }

    public ServerConfig withApiKeys(List<String> keys) {
        return new ServerConfig(
                host, port, bodyLimit, keys, corsOrigins, strict, keepAliveMillis, allowedHosts, imageUrls);
    }

    public ServerConfig withCorsOrigins(List<String> origins) {
        return new ServerConfig(
                host, port, bodyLimit, apiKeys, origins, strict, keepAliveMillis, allowedHosts, imageUrls);
    }

    public ServerConfig withStrict(boolean on) {
        return new ServerConfig(
                host, port, bodyLimit, apiKeys, corsOrigins, on, keepAliveMillis, allowedHosts, imageUrls);
    }

    public ServerConfig withKeepAliveMillis(long millis) {
        return new ServerConfig(host, port, bodyLimit, apiKeys, corsOrigins, strict, millis, allowedHosts, imageUrls);
    }

    public ServerConfig withAllowedHosts(List<String> hosts) {
        return new ServerConfig(host, port, bodyLimit, apiKeys, corsOrigins, strict, keepAliveMillis, hosts, imageUrls);
    }

    public ServerConfig withImageUrls(ImageUrls urls) {
        return new ServerConfig(
                host, port, bodyLimit, apiKeys, corsOrigins, strict, keepAliveMillis, allowedHosts, urls);
    }
}
