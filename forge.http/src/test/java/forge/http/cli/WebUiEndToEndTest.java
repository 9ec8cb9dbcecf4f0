package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.lib.gguf.synth.SynthSpec;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * The web UI as a browser meets it on a server started with {@code --api-key}: the page and its
 * files without a key, with their content types and caching; every API route still behind the
 * key and answering JSON, unknown {@code /v1} paths an OpenAI 404; the page's same-origin calls
 * pass the browser guard, other origins do not. (dist's browser tests drive the UI itself.)
 */
class WebUiEndToEndTest {

    private static final String BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    private static final String KEY = "ui-key";

    @AutoClose
    static final TestServer server =
            TestServer.serve(TestServer.model("tiny", SynthSpec.tiny("qwen")), "-c 512 -np 1 -t 2", "--api-key", KEY);

    static final Http http = server.http();

    private static HttpRequest.Builder page(String path) {
        return http.request(path).header("Accept", BROWSER_ACCEPT);
    }

    @Test
    void thePageAndItsFilesNeedNoKey() throws Exception {
        HttpResponse<String> index = http.send(page("/"));
        assertEquals(200, index.statusCode());
        assertEquals(
                "text/html; charset=utf-8",
                index.headers().firstValue("content-type").orElse(""));
        assertEquals("no-cache", index.headers().firstValue("cache-control").orElse(""));
        assertTrue(
                index.headers().firstValue("content-security-policy").orElse("").contains("connect-src 'self'"));
        assertEquals(
                "nosniff", index.headers().firstValue("x-content-type-options").orElse(""));
        assertTrue(index.body().contains("<div id=\"app\"></div>"), index.body());
        assertFalse(
                index.body().contains("http://") || index.body().contains("https://"),
                "nothing from another host: " + index.body());

        Matcher js = Pattern.compile("src=\"(/assets/[^\"]+\\.js)\"").matcher(index.body());
        Matcher css = Pattern.compile("href=\"(/assets/[^\"]+\\.css)\"").matcher(index.body());
        assertTrue(js.find() && css.find(), index.body());
        HttpResponse<String> script = http.send(http.request(js.group(1)));
        assertEquals(200, script.statusCode());
        assertEquals(
                "text/javascript; charset=utf-8",
                script.headers().firstValue("content-type").orElse(""));
        assertEquals(
                "public, max-age=31536000, immutable",
                script.headers().firstValue("cache-control").orElse(""));
        HttpResponse<String> style = http.send(http.request(css.group(1)));
        assertEquals(
                "text/css; charset=utf-8",
                style.headers().firstValue("content-type").orElse(""));
        assertEquals(
                "image/svg+xml",
                http.send(http.request("/favicon.svg"))
                        .headers()
                        .firstValue("content-type")
                        .orElse(""));

        String etag = index.headers().firstValue("etag").orElseThrow();
        assertEquals(304, http.send(page("/").header("If-None-Match", etag)).statusCode());
        HttpResponse<String> head = http.send(page("/").method("HEAD", HttpRequest.BodyPublishers.noBody()));
        assertEquals(200, head.statusCode());
        assertEquals(
                String.valueOf(index.body().getBytes(java.nio.charset.StandardCharsets.UTF_8).length),
                head.headers().firstValue("content-length").orElse(""));
    }

    @Test
    void theApiStaysBehindTheKeyAndAnswersJsonEvenToABrowser() throws Exception {
        for (String path :
                new String[] {"/v1/models", "/slots", "/props", "/metrics", "/models", "/v1/nope", "/nothing.json"}) {
            HttpResponse<String> r = http.send(page(path));
            assertEquals(401, r.statusCode(), path);
            assertEquals(
                    "invalid_api_key",
                    JSON.readTree(r.body()).get("error").get("code").asText(),
                    path);
        }
        HttpResponse<String> unknown = http.send(page("/v1/nope").header("Authorization", "Bearer " + KEY));
        assertEquals(404, unknown.statusCode());
        JsonNode error = JSON.readTree(unknown.body()).get("error");
        assertEquals("not_found", error.get("code").asText());
        assertEquals("invalid_request_error", error.get("type").asText());
        assertTrue(unknown.headers().firstValue("content-type").orElse("").startsWith("application/json"));
        assertEquals(
                404,
                http.send(http.request("/assets/missing.js").header("Authorization", "Bearer " + KEY))
                        .statusCode());
        assertEquals(
                200,
                http.send(page("/v1/models").header("Authorization", "Bearer " + KEY))
                        .statusCode());
        assertEquals(200, http.send(page("/health")).statusCode(), "/health as before: JSON, no key");
        assertTrue(http.send(page("/health")).body().contains("\"status\""));
    }

    @Test
    void aNavigationToAnUnknownPathGetsThePageAnyOtherCallTheApiAnswer() throws Exception {
        HttpResponse<String> deep = http.send(page("/dashboard"));
        assertEquals(200, deep.statusCode());
        assertTrue(deep.body().contains("<div id=\"app\"></div>"));
        assertEquals(401, http.send(http.request("/dashboard")).statusCode(), "no Accept: text/html, no page");
        assertEquals(
                404,
                http.send(http.request("/dashboard").header("Authorization", "Bearer " + KEY))
                        .statusCode());
        assertEquals(401, http.send(http.postRequest("/", "{}")).statusCode(), "only GET and HEAD get the page");
    }

    @Test
    void thePagesOwnCallsPassTheBrowserGuardOthersDoNot() throws Exception {
        String self = http.base();
        HttpResponse<String> same = http.send(http.postRequest("/tokenize", "{\"content\": \"hi\"}")
                .header("Origin", self)
                .header("Authorization", "Bearer " + KEY));
        assertEquals(200, same.statusCode(), same.body());
        HttpResponse<String> foreign = http.send(http.postRequest("/tokenize", "{\"content\": \"hi\"}")
                .header("Origin", "https://evil.example")
                .header("Authorization", "Bearer " + KEY));
        assertEquals(403, foreign.statusCode());
        assertEquals(
                403,
                http.send(page("/").header("Origin", "https://evil.example")).statusCode(),
                "not even the page's files");
    }
}
