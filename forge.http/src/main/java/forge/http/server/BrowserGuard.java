package forge.http.server;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Keeps web pages of other sites from driving the server, before anything runs.
 *
 * <p>A page can make a browser send a "simple" cross-origin POST ({@code Content-Type: text/plain})
 * without a preflight: CORS only hides the answer from the page, the request itself runs. So a
 * request whose {@code Origin} is not allowed (a local origin, one given with {@code --cors-origin},
 * or the server's own, same-origin) is refused with 403 whatever its content type. Browsers send
 * {@code Origin} on every cross-origin POST; curl and the SDKs send none and are not affected.
 *
 * <p>DNS rebinding (a hostile name that resolves to 127.0.0.1) makes a page same-origin with the
 * server, so while the server is bound to a loopback address its {@code Host} must be a loopback
 * name ({@code localhost}, {@code *.localhost}, {@code 127.x.x.x}, {@code [::1]}) or one given with
 * {@code --allowed-host} ({@code .example.lan} for a domain and its subdomains, {@code *} for any),
 * as Vite's {@code server.allowedHosts} and Jupyter check it. Ollama fixed the same hole
 * (CVE-2024-28224). Bound to another address, the server is meant to be reached by other names,
 * and the API key is what guards it.
 */
final class BrowserGuard {

    private final CorsPolicy cors;
    private final boolean loopbackBound;
    private final Set<String> allowedHosts;
    private final boolean anyHost;

    BrowserGuard(CorsPolicy cors, String bindHost, List<String> allowedHosts) {
        this.cors = cors;
        this.loopbackBound = isLoopbackName(bindHost.toLowerCase(Locale.ROOT));
        this.anyHost = allowedHosts.contains("*");
        this.allowedHosts = allowedHosts.stream()
                .map(h -> h.strip().toLowerCase(Locale.ROOT))
                .collect(Collectors.toUnmodifiableSet());
    }

    /**
     * Refuses a request from a page that may not call the API.
     *
     * @param host   the {@code Host} header, or null
     * @param origin the {@code Origin} header, or null
     * @throws ApiError 403
     */
    void check(String host, String origin) {
        if (loopbackBound && host != null && !hostAllowed(hostName(host))) {
            throw forbidden("the Host '" + host + "' is not a name of this server; a server bound to a loopback address"
                    + " answers only loopback names (start it with --allowed-host NAME to add one)");
        }
        if (origin != null && !cors.allowed(origin) && !sameOrigin(origin, host)) {
            throw forbidden("requests from the web page origin '" + origin + "' are not allowed"
                    + " (start the server with --cors-origin ORIGIN to allow it)");
        }
    }

    private static ApiError forbidden(String message) {
        return new ApiError(403, "invalid_request_error", "forbidden", null, message);
    }

    private boolean hostAllowed(String name) {
        if (isLoopbackName(name) || anyHost || allowedHosts.contains(name)) {
            return true;
        }
        for (String allowed : allowedHosts) {
            if (allowed.startsWith(".") && (name.endsWith(allowed) || name.equals(allowed.substring(1)))) {
                return true;
            }
        }
        return false;
    }

    /** {@code localhost}, a name under {@code .localhost} (browsers resolve those to loopback themselves), 127/8, ::1. */
    static boolean isLoopbackName(String name) {
        if (name.equals("localhost")
                || name.endsWith(".localhost")
                || name.equals("[::1]")
                || name.equals("::1")
                || name.equals("0:0:0:0:0:0:0:1")) {
            return true;
        }
        String[] parts = name.split("\\.", -1);
        if (parts.length != 4 || !parts[0].equals("127")) {
            return false;
        }
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(Character::isDigit) || Integer.parseInt(p) > 255) {
                return false;
            }
        }
        return true;
    }

    /** The name of a Host header, lower case, without its port; IPv6 literals keep their brackets. */
    static String hostName(String host) {
        String h = host.strip().toLowerCase(Locale.ROOT);
        if (h.startsWith("[")) {
            int close = h.indexOf(']');
            return close < 0 ? h : h.substring(0, close + 1);
        }
        int colon = h.indexOf(':');
        h = colon < 0 ? h : h.substring(0, colon);
        return h.endsWith(".") ? h.substring(0, h.length() - 1) : h;
    }

    /** Whether the page's origin is this server itself, as the request reached it. */
    private static boolean sameOrigin(String origin, String host) {
        if (host == null) {
            return false;
        }
        try {
            URI uri = new URI(origin.strip());
            if (uri.getScheme() == null
                    || uri.getRawAuthority() == null
                    || (uri.getRawPath() != null && !uri.getRawPath().isEmpty())) {
                return false;
            }
            String authority = uri.getRawAuthority().toLowerCase(Locale.ROOT);
            String h = host.strip().toLowerCase(Locale.ROOT);
            String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
            return authority.equals(h)
                    || (scheme.equals("http") && (authority + ":80").equals(h))
                    || (scheme.equals("https") && (authority + ":443").equals(h))
                    || (scheme.equals("http") && authority.equals(stripPort(h, ":80")))
                    || (scheme.equals("https") && authority.equals(stripPort(h, ":443")));
        } catch (URISyntaxException e) {
            return false;
        }
    }

    private static String stripPort(String host, String port) {
        return host.endsWith(port) ? host.substring(0, host.length() - port.length()) : host;
    }
}
