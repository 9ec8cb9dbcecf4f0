package forge.http.server;

/**
 * Where and how the HTTP server listens.
 *
 * @param host      the address to bind ({@code 127.0.0.1} by default: local only)
 * @param port      the port; 0 picks a free one
 * @param bodyLimit the largest request body accepted, in bytes (larger ones get 413)
 */
public record ServerConfig(String host, int port, long bodyLimit) {
    public ServerConfig {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0 to 65535: " + port);
        }
        if (bodyLimit < 1024) {
            throw new IllegalArgumentException("body limit is too small: " + bodyLimit);
        }
    }

    public static ServerConfig of(String host, int port) {
        return new ServerConfig(host, port, 16L * 1024 * 1024);
    }
}
