package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.lib.gguf.synth.SynthSpec;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's access rules end to end: API keys (flag and file), CORS, the body limit flag,
 * {@code --strict}, and SSE keep-alive comments.
 */
class AccessEndToEndTest {

    private static final String CHAT = """
            {"model": "tiny", "max_tokens": 2, "messages": [{"role": "user", "content": "hi"}]}""";

    @AutoClose
    static TestServer server;

    static Http http;

    @BeforeAll
    static void start(@TempDir Path work) throws Exception {
        Path keys = work.resolve("keys.txt");
        Files.writeString(keys, "# team keys\nfile-key-1\n\n  file-key-2  \n");
        server = TestServer.serve(
                TestServer.model("tiny", SynthSpec.tiny("qwen")),
                "-c 512 -np 1 -t 2 --api-key flag-key --cors-origin https://app.example.com --max-body 8k --strict --sse-keep-alive-ms 1 --allowed-host forge.lan --allowed-host .home.example",
                "--api-key-file",
                keys.toString());
        http = server.http();
    }

    static HttpRequest.Builder post(String path, String body, String key) {
        HttpRequest.Builder b = http.postRequest(path, body);
        return key == null ? b : b.header("Authorization", "Bearer " + key);
    }

    @Test
    void everyRouteButHealthNeedsAKey() throws Exception {
        assertEquals(200, http.send(http.request("/health")).statusCode());
        HttpResponse<String> r = http.send(http.request("/v1/models"));
        assertEquals(401, r.statusCode());
        assertEquals(
                "invalid_api_key",
                JSON.readTree(r.body()).get("error").get("code").asText());
        assertEquals(401, http.send(post("/v1/chat/completions", CHAT, null)).statusCode());
        assertEquals(
                401, http.send(post("/v1/chat/completions", CHAT, "wrong-key")).statusCode());
        assertEquals(
                401,
                http.send(post("/v1/chat/completions", CHAT, "flag-key-but-longer"))
                        .statusCode());
        assertEquals(
                401,
                http.send(http.request("/v1/models").header("Authorization", "flag-key"))
                        .statusCode(),
                "the Bearer scheme is required");
        // Unknown routes are 401 too: nothing about the API is told to a caller without a key.
        assertEquals(401, http.send(http.request("/nothing")).statusCode());
        for (String key : new String[] {"flag-key", "file-key-1", "file-key-2"}) {
            HttpResponse<String> ok = http.send(http.request("/v1/models").header("Authorization", "Bearer " + key));
            assertEquals(200, ok.statusCode(), key);
        }
        assertEquals(
                200, http.send(post("/v1/chat/completions", CHAT, "file-key-2")).statusCode());
    }

    @Test
    void corsAllowsLocalAndConfiguredOriginsOnly() throws Exception {
        for (String origin : new String[] {
            "http://localhost:5173", "https://127.0.0.1", "http://[::1]:8080", "https://app.example.com"
        }) {
            HttpResponse<String> pre = http.send(http.request("/v1/chat/completions")
                    .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                    .header("Origin", origin)
                    .header("Access-Control-Request-Method", "POST")
                    .header("Access-Control-Request-Headers", "authorization, content-type, x-stainless-os"));
            assertEquals(204, pre.statusCode(), origin);
            assertEquals(
                    origin,
                    pre.headers().firstValue("access-control-allow-origin").orElse(null),
                    origin);
            assertTrue(pre.headers()
                    .firstValue("access-control-allow-methods")
                    .orElse("")
                    .contains("POST"));
            assertTrue(pre.headers()
                    .firstValue("access-control-allow-headers")
                    .orElse("")
                    .contains("x-stainless-os"));
            HttpResponse<String> actual =
                    http.send(post("/v1/chat/completions", CHAT, "flag-key").header("Origin", origin));
            assertEquals(200, actual.statusCode());
            assertEquals(
                    origin,
                    actual.headers().firstValue("access-control-allow-origin").orElse(null));
        }
        // An error to an allowed origin is readable by the page too.
        HttpResponse<String> denied =
                http.send(post("/v1/chat/completions", CHAT, null).header("Origin", "http://localhost:3000"));
        assertEquals(401, denied.statusCode());
        assertEquals(
                "http://localhost:3000",
                denied.headers().firstValue("access-control-allow-origin").orElse(null));
        for (String origin :
                new String[] {"https://evil.example", "http://localhost.evil.example", "http://127.0.0.1.nip.io", "null"
                }) {
            HttpResponse<String> pre = http.send(http.request("/v1/chat/completions")
                    .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                    .header("Origin", origin)
                    .header("Access-Control-Request-Method", "POST"));
            assertTrue(pre.headers().firstValue("access-control-allow-origin").isEmpty(), origin);
            assertTrue(pre.headers().firstValue("access-control-allow-methods").isEmpty(), origin);
            HttpResponse<String> actual =
                    http.send(post("/v1/models", "{}", "flag-key").header("Origin", origin));
            assertTrue(
                    actual.headers().firstValue("access-control-allow-origin").isEmpty(), origin);
        }
    }

    @Test
    void maxBodyFlagSetsTheLimit() throws Exception {
        String big = "x".repeat(9 * 1024);
        HttpResponse<String> r = http.send(post("/v1/chat/completions", """
                {"model": "tiny", "messages": [{"role": "user", "content": "%s"}]}""".formatted(big), "flag-key"));
        assertEquals(413, r.statusCode());
        assertEquals(
                "request_too_large",
                JSON.readTree(r.body()).get("error").get("code").asText());
    }

    @Test
    void anXApiKeyIsAcceptedWhereverABearerTokenIs() throws Exception {
        assertEquals(
                200,
                http.send(http.request("/v1/models").header("x-api-key", "flag-key"))
                        .statusCode());
        assertEquals(
                200,
                http.send(http.postRequest("/v1/chat/completions", CHAT).header("x-api-key", "file-key-1"))
                        .statusCode());
        String message = """
                {"model": "tiny", "max_tokens": 2, "messages": [{"role": "user", "content": "hi"}]}""";
        HttpResponse<String> r = http.send(http.postRequest("/v1/messages", message)
                .header("x-api-key", "flag-key")
                .header("anthropic-version", "2023-06-01"));
        assertEquals(200, r.statusCode(), r.body());
        assertEquals(
                200,
                http.send(post("/v1/messages", message, "file-key-2")).statusCode(),
                "and a bearer token on Anthropic's route");
        // Refused on Anthropic's route, in Anthropic's shape.
        for (String key : new String[] {null, "wrong-key"}) {
            HttpRequest.Builder b = http.postRequest("/v1/messages", message);
            r = http.send(key == null ? b : b.header("x-api-key", key));
            assertEquals(401, r.statusCode());
            JsonNode e = JSON.readTree(r.body());
            assertEquals("error", e.get("type").asText(), r.body());
            assertEquals("authentication_error", e.get("error").get("type").asText());
        }
    }

    @Test
    void strictStillRefusesAMaxTokensBeyondTheSlot() throws Exception {
        HttpResponse<String> r = http.send(post("/v1/chat/completions", """
                {"model": "tiny", "max_tokens": 100000, "messages": [{"role": "user", "content": "hi"}]}""", "flag-key"));
        assertEquals(400, r.statusCode(), r.body());
        assertEquals(
                "context_length_exceeded",
                JSON.readTree(r.body()).get("error").get("code").asText());
        r = http.send(post("/v1/messages", """
                {"model": "tiny", "max_tokens": 100000, "messages": [{"role": "user", "content": "hi"}]}""", "flag-key"));
        assertEquals(400, r.statusCode(), r.body());
        assertEquals(
                "invalid_request_error",
                JSON.readTree(r.body()).get("error").get("type").asText());
    }

    @Test
    void strictRefusesParametersWithoutEffect() throws Exception {
        HttpResponse<String> r = http.send(post("/v1/chat/completions", """
                {"model": "tiny", "max_tokens": 2, "service_tier": "flex", "messages": [{"role": "user", "content": "hi"}]}""", "flag-key"));
        assertEquals(400, r.statusCode(), r.body());
        JsonNode error = JSON.readTree(r.body()).get("error");
        assertEquals("service_tier", error.get("param").asText());
        assertTrue(error.get("message").asText().contains("X-Forge-Ignored-Params"));
    }

    @Test
    void aSilentStreamGetsKeepAliveComments() throws Exception {
        // The stream waits in the queue while another request holds the only slot: silence, far
        // longer than the 1 ms interval, whatever the machine's speed (the tiny model prefills a
        // short prompt in about 2 ms, which did not always leave 1 ms after the stream opened).
        var blocker = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return http.send(post("/v1/chat/completions", """
                        {"model": "tiny", "max_tokens": 400, "ignore_eos": true, "messages": [{"role": "user", "content": "hold"}]}""", "flag-key"));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (!http.send(http.request("/slots").header("Authorization", "Bearer flag-key"))
                .body()
                .contains("\"is_processing\":true")) {
            assertTrue(System.nanoTime() < deadline, "the blocking request never started");
            Thread.sleep(1);
        }
        HttpResponse<String> r = http.send(
                post("/v1/chat/completions", """
                {"model": "tiny", "max_tokens": 4, "stream": true, "messages": [{"role": "user", "content": "%s"}]}""".formatted(System.nanoTime() + " tell me a story"), "flag-key"));
        assertEquals(200, blocker.join().statusCode());
        assertEquals(200, r.statusCode());
        String[] blocks = r.body().split("\n\n");
        assertTrue(r.body().contains(": keep-alive\n\n"), r.body());
        assertEquals("data: [DONE]", blocks[blocks.length - 1]);
        for (String block : blocks) {
            assertTrue(block.startsWith("data: ") || block.equals(": keep-alive"), block);
        }
        assertFalse(r.body().contains("\"error\""));
    }

    static String raw(String method, String path, String host, List<String> headers, String body) throws Exception {
        return http.raw(method + " " + path, host, headers, body);
    }

    private static double completionTokens() throws Exception {
        String metrics = http.send(http.request("/metrics").header("Authorization", "Bearer flag-key"))
                .body();
        return metrics.lines()
                .filter(l -> l.startsWith("forge_completion_tokens_total"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }

    /**
     * What a page of another site makes a browser send: a "simple" POST (text/plain, no preflight)
     * with its Origin, or, through DNS rebinding, a same-origin request whose Host is the hostile name.
     * Each is a 403 in OpenAI's shape before anything runs; a request without Origin (curl, SDKs),
     * from a local page, from the server's own origin or to an allowed Host name still works.
     */
    @Test
    void pagesOfOtherSitesAreRefusedBeforeAnythingRuns() throws Exception {
        String port = String.valueOf(java.net.URI.create(http.base()).getPort());
        double before = completionTokens();
        List<String> browser = List.of(
                "Content-Type: text/plain;charset=UTF-8",
                "Origin: https://evil.example",
                "Sec-Fetch-Site: cross-site",
                "Sec-Fetch-Mode: no-cors",
                "Authorization: Bearer flag-key");
        String simple = raw("POST", "/v1/chat/completions", "127.0.0.1:" + port, browser, CHAT);
        assertTrue(simple.startsWith("HTTP/1.1 403"), simple);
        assertTrue(simple.contains("\"code\":\"forbidden\""), simple);
        assertTrue(simple.contains("https://evil.example"), simple);
        String json = raw(
                "POST",
                "/v1/chat/completions",
                "localhost:" + port,
                List.of("Content-Type: application/json", "Origin: null", "Authorization: Bearer flag-key"),
                CHAT);
        assertTrue(json.startsWith("HTTP/1.1 403"), json);
        String preflight = raw(
                "OPTIONS",
                "/v1/chat/completions",
                "127.0.0.1:" + port,
                List.of("Origin: https://evil.example", "Access-Control-Request-Method: POST"),
                "");
        assertTrue(preflight.startsWith("HTTP/1.1 403"), preflight);
        // DNS rebinding: the page is same-origin with the hostile name, which resolved to 127.0.0.1.
        String rebound = raw(
                "POST",
                "/v1/chat/completions",
                "evil.example:" + port,
                List.of(
                        "Content-Type: text/plain",
                        "Origin: http://evil.example:" + port,
                        "Authorization: Bearer flag-key"),
                CHAT);
        assertTrue(rebound.startsWith("HTTP/1.1 403"), rebound);
        assertTrue(rebound.contains("--allowed-host"), rebound);
        String noOrigin = raw("GET", "/health", "attacker.example", List.of(), "");
        assertTrue(noOrigin.startsWith("HTTP/1.1 403"), noOrigin);
        assertEquals(before, completionTokens(), "nothing was generated for those requests");

        List<String> key = List.of("Content-Type: application/json", "Authorization: Bearer flag-key");
        assertTrue(raw("POST", "/v1/chat/completions", "127.0.0.1:" + port, key, CHAT)
                .startsWith("HTTP/1.1 200"));
        assertTrue(raw(
                        "POST",
                        "/v1/chat/completions",
                        "localhost:" + port,
                        List.of(
                                "Content-Type: application/json",
                                "Origin: http://localhost:5173",
                                "Authorization: Bearer flag-key"),
                        CHAT)
                .startsWith("HTTP/1.1 200"));
        for (String host : new String[] {
            "forge.lan:" + port,
            "home.example",
            "box.home.example:" + port,
            "[::1]:" + port,
            "127.0.0.2:" + port,
            "app.localhost:" + port
        }) {
            // The server's own page, reached by an allowed name, is same-origin.
            String r = raw(
                    "POST",
                    "/v1/chat/completions",
                    host,
                    List.of(
                            "Content-Type: application/json",
                            "Origin: http://" + host,
                            "Authorization: Bearer flag-key"),
                    CHAT);
            assertTrue(r.startsWith("HTTP/1.1 200"), host + ": " + r);
        }
        for (String host :
                new String[] {"forge.lan.evil.example", "evilhome.example", "127.0.0.1.nip.io", "localhost.evil.example"
                }) {
            assertTrue(raw("GET", "/health", host, List.of(), "").startsWith("HTTP/1.1 403"), host);
        }
        assertTrue(completionTokens() > before);
    }
}
