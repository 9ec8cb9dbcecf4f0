package forge.http.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The web UI at {@code /}: the files Vite built from {@code src/main/webui} into this module's
 * {@code META-INF/forge/webui/} (a folder that is no package, so a named module's resources there
 * are readable; see STYLE.md's known traps).
 *
 * <p>The files carry no secret and are served without an API key: a browser has to load the page
 * before it can ask its user for one. Every API call the page makes carries the key. The browser
 * guard (Host and Origin) still runs first, so a rebinding page cannot read them either.
 *
 * <p>Vite names the bundled files by their content hash ({@code /assets/index-3f2a1c.js}): those
 * are cached for a year, immutable; {@code index.html} is revalidated on every load ({@code no-cache}
 * with an {@code ETag}), so a new server version shows at the next reload. A page navigation to an
 * unknown path that is no API route gets {@code index.html} (the UI routes by the URL's fragment,
 * so a stale bookmark still opens it); anything else unknown, {@code /v1/...} above all, stays the
 * API's OpenAI-shaped 404.
 */
final class WebUi {

    /** Where the build puts the files, inside this module. */
    static final String ROOT = "META-INF/forge/webui/";

    /**
     * What the page may do: scripts, styles and connections to this server only (no CDN, nothing
     * fetched elsewhere), never framed.
     */
    static final String CONTENT_SECURITY_POLICY =
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:;"
                    + " connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private static final Pattern SAFE_PATH = Pattern.compile("(/[A-Za-z0-9_][A-Za-z0-9._-]{0,127}){1,4}");

    private static final Map<String, String> TYPES = Map.ofEntries(
            Map.entry("html", "text/html; charset=utf-8"),
            Map.entry("js", "text/javascript; charset=utf-8"),
            Map.entry("css", "text/css; charset=utf-8"),
            Map.entry("json", "application/json"),
            Map.entry("svg", "image/svg+xml"),
            Map.entry("png", "image/png"),
            Map.entry("ico", "image/x-icon"),
            Map.entry("woff2", "font/woff2"),
            Map.entry("txt", "text/plain; charset=utf-8"));

    /** One file as it is answered. */
    record Asset(String name, byte[] bytes, String contentType, String cacheControl, String etag) {}

    private final Predicate<String> apiPath;
    /** Files by name, absent ones too: the jar does not change while the server runs. */
    private final Map<String, Optional<Asset>> files = new ConcurrentHashMap<>();

    /** @param apiPath whether a path belongs to the API (never answered with the page) */
    WebUi(Predicate<String> apiPath) {
        this.apiPath = apiPath;
    }

    /**
     * The file a request asks for, or empty when it is not the UI's: another method than GET and
     * HEAD, an API path, an unknown file, or an unknown path asked for by something other than a
     * page navigation (a navigation's {@code Accept} names {@code text/html}).
     */
    Optional<Asset> resolve(String method, String path, String accept) {
        if (!("GET".equals(method) || "HEAD".equals(method)) || apiPath.test(path)) {
            return Optional.empty();
        }
        if (path.equals("/") || path.equals("/index.html")) {
            return file("index.html");
        }
        if (!SAFE_PATH.matcher(path).matches() || path.contains("..")) {
            return Optional.empty();
        }
        Optional<Asset> file = file(path.substring(1));
        if (file.isPresent()) {
            return file;
        }
        boolean navigation = accept != null && accept.toLowerCase(Locale.ROOT).contains("text/html");
        boolean looksLikeFile = path.substring(path.lastIndexOf('/') + 1).contains(".");
        return navigation && !looksLikeFile ? file("index.html") : Optional.empty();
    }

    /** Answers with {@code asset}: 304 when the client's copy is current. */
    static void send(Asset asset, Request request, Response response, Callback callback) {
        var headers = response.getHeaders();
        headers.put(HttpHeader.CACHE_CONTROL, asset.cacheControl());
        headers.put(HttpHeader.ETAG, asset.etag());
        headers.put("X-Content-Type-Options", "nosniff");
        if (asset.contentType().startsWith("text/html")) {
            headers.put("Content-Security-Policy", CONTENT_SECURITY_POLICY);
            headers.put("Referrer-Policy", "no-referrer");
        }
        String known = request.getHeaders().get(HttpHeader.IF_NONE_MATCH);
        if (known != null && known.contains(asset.etag())) {
            response.setStatus(304);
            callback.succeeded();
            return;
        }
        response.setStatus(200);
        headers.put(HttpHeader.CONTENT_TYPE, asset.contentType());
        headers.put(HttpHeader.CONTENT_LENGTH, asset.bytes().length);
        boolean head = "HEAD".equals(request.getMethod());
        response.write(true, head ? ByteBuffer.allocate(0) : ByteBuffer.wrap(asset.bytes()), callback);
    }

    private Optional<Asset> file(String name) {
        return files.computeIfAbsent(name, WebUi::load);
    }

    private static Optional<Asset> load(String name) {
        try (InputStream in = WebUi.class.getModule().getResourceAsStream(ROOT + name)) {
            if (in == null) {
                return Optional.empty();
            }
            byte[] bytes = in.readAllBytes();
            String extension = name.substring(name.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
            String type = TYPES.getOrDefault(extension, "application/octet-stream");
            // Only the hashed bundle files may be kept forever; a new build has new names for them.
            String cache = name.startsWith("assets/") ? "public, max-age=31536000, immutable" : "no-cache";
            return Optional.of(new Asset(name, bytes, type, cache, etag(bytes)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the web UI's " + name, e);
        }
    }

    private static String etag(byte[] bytes) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
            return "\"" + HexFormat.of().formatHex(digest, 0, 12) + "\"";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
