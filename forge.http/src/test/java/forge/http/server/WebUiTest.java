package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which requests the web UI answers, and how (the files are the ones the build put into this module). */
class WebUiTest {

    private final WebUi ui = new WebUi(ForgeServer::apiPath);

    @Test
    void theRootIsThePageRevalidatedOnEveryLoad() {
        WebUi.Asset index = ui.resolve("GET", "/", null)
                .orElseThrow(() -> new AssertionError("the build put no index.html into the module"));
        assertEquals("text/html; charset=utf-8", index.contentType());
        assertEquals("no-cache", index.cacheControl());
        assertTrue(new String(index.bytes(), StandardCharsets.UTF_8).contains("<div id=\"app\">"));
        assertEquals(index, ui.resolve("HEAD", "/index.html", null).orElseThrow());
        assertTrue(index.etag().matches("\"[0-9a-f]{24}\""), index.etag());
    }

    @Test
    void hashedBundleFilesAreImmutable() {
        String html = new String(ui.resolve("GET", "/", null).orElseThrow().bytes(), StandardCharsets.UTF_8);
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("src=\"(/assets/[^\"]+\\.js)\"").matcher(html);
        assertTrue(m.find(), html);
        WebUi.Asset js = ui.resolve("GET", m.group(1), null).orElseThrow();
        assertEquals("text/javascript; charset=utf-8", js.contentType());
        assertEquals("public, max-age=31536000, immutable", js.cacheControl());
        assertEquals(
                "image/svg+xml",
                ui.resolve("GET", "/favicon.svg", null).orElseThrow().contentType());
    }

    @Test
    void pageNavigationsToUnknownPathsGetThePageButApiPathsNever() {
        String browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
        assertEquals(
                "index.html", ui.resolve("GET", "/chat", browser).orElseThrow().name());
        assertEquals(
                "index.html",
                ui.resolve("GET", "/some/deep/link", browser).orElseThrow().name());
        assertEquals(
                Optional.empty(),
                ui.resolve("GET", "/chat", "application/json"),
                "not a navigation: the API's 404 (or 401)");
        assertEquals(Optional.empty(), ui.resolve("GET", "/chat", null));
        assertEquals(Optional.empty(), ui.resolve("GET", "/assets/missing.js", browser), "a missing file is no page");
        for (String api : new String[] {
            "/v1",
            "/v1/",
            "/v1/nope",
            "/v1/models",
            "/v1/models/tiny",
            "/health",
            "/metrics",
            "/slots",
            "/props",
            "/models",
            "/models/tiny",
            "/apply-template",
            "/tokenize",
            "/v1/chat/completions"
        }) {
            assertEquals(Optional.empty(), ui.resolve("GET", api, browser), api);
        }
    }

    @Test
    void onlyReadsItsOwnFolder() {
        String browser = "text/html";
        for (String path : new String[] {
            "/../module-info.class",
            "/assets/../../logback.xml",
            "/logback.xml",
            "/.vite/manifest.json",
            "/forge/http/server/WebUi.class"
        }) {
            Optional<WebUi.Asset> a = ui.resolve("GET", path, browser);
            assertTrue(a.isEmpty() || a.get().name().equals("index.html"), path + " -> " + a.map(WebUi.Asset::name));
        }
        assertEquals(Optional.empty(), ui.resolve("GET", "/module-info.class", browser));
        assertEquals(Optional.empty(), ui.resolve("POST", "/", browser), "only GET and HEAD");
        assertEquals(Optional.empty(), ui.resolve("DELETE", "/index.html", browser));
    }
}
