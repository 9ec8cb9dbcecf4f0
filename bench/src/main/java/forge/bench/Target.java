package forge.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One server under test.
 *
 * @param name  the label of its metrics ({@code forge}, {@code peer}): lower-case letters, digits, {@code _}
 * @param base  its base URL, e.g. {@code http://127.0.0.1:8090}; loopback addresses only
 * @param model the model id to send in requests
 */
public record Target(String name, URI base, String model) {

    private static final Pattern NAME = Pattern.compile("[a-z0-9_]+");

    public Target {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("server name must match [a-z0-9_]+: " + name);
        }
        requireLoopback(base);
    }

    /**
     * Server {@code name} at {@code base}, with its {@code --model} from {@code models}, else the
     * first of its {@code /v1/models}.
     */
    static Target of(ChatClient client, String name, URI base, Map<String, String> models)
            throws IOException, InterruptedException {
        String model = models.get(name);
        return new Target(name, base, model != null ? model : client.firstModelId(base));
    }

    /** The URL of {@code path} (which starts with {@code /}) on this server. */
    public URI resolve(String path) {
        return resolve(base, path);
    }

    static URI resolve(URI base, String path) {
        String b = base.toString();
        return URI.create((b.endsWith("/") ? b.substring(0, b.length() - 1) : b) + path);
    }

    /**
     * Refuses anything but a literal loopback address ({@code 127.0.0.0/8}, {@code ::1}) over plain
     * HTTP: benchmark traffic never leaves the machine, and a literal address cannot be made to
     * resolve elsewhere.
     */
    public static URI requireLoopback(URI base) {
        if (!"http".equals(base.getScheme()) || base.getHost() == null) {
            throw new IllegalArgumentException("not an http://HOST:PORT URL: " + base);
        }
        String host = base.getHost();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        boolean loopback;
        try {
            loopback = InetAddress.ofLiteral(host).isLoopbackAddress();
        } catch (IllegalArgumentException e) {
            loopback = false; // a host name, not a literal address
        }
        if (!loopback) {
            throw new IllegalArgumentException(
                    "benchmarks talk to loopback addresses only (e.g. 127.0.0.1), not " + base);
        }
        return base;
    }
}
