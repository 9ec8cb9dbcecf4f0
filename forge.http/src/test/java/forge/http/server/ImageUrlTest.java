package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import forge.api.template.ChatImage;
import forge.http.cli.Http;
import forge.http.cli.TestServer;
import forge.lib.gguf.synth.SynthSpec;
import forge.runtime.plugin.SamplerStages;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Image URLs: refused unless the server allows them; when it does, fetched within the size and
 * time limits, never from an address the settings keep out (checked on every redirect hop and
 * pinned for the connection), and the bytes checked as inline images are. The images are served
 * by a loopback server of the test's own.
 */
class ImageUrlTest {

    static HttpServer images;
    static String base;
    /** Requests the image server saw, by path. */
    static final Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
    /** Holds /slow's answer until the test is over. */
    static final CountDownLatch release = new CountDownLatch(1);

    static final byte[] PNG = ImageInputTest.png(32, 16);

    /** Loopback is private: these settings reach 127.0.0.1 and nothing else that is private. */
    static final ImageUrls LOOPBACK_ONE = ImageUrls.DEFAULTS.withAllowed(true).withPrivateNets(List.of("127.0.0.1/32"));

    @BeforeAll
    static void serve() throws IOException {
        images = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        int port = images.getAddress().getPort();
        base = "http://127.0.0.1:" + port;
        handle("/cat.png", x -> send(x, 200, PNG));
        handle("/page.html", x -> send(x, 200, "<html>no image</html>".getBytes(StandardCharsets.UTF_8)));
        handle("/cut.png", x -> send(x, 200, Arrays.copyOf(PNG, 20)));
        handle("/missing.png", x -> send(x, 404, "not found".getBytes(StandardCharsets.UTF_8)));
        handle("/big.png", x -> send(x, 200, Arrays.copyOf(PNG, 4096)));
        handle("/big-chunked.png", x -> {
            x.sendResponseHeaders(200, 0); // chunked: no length to refuse before reading
            try (OutputStream out = x.getResponseBody()) {
                out.write(PNG);
                out.write(new byte[4096]);
            }
        });
        handle("/to-cat", x -> redirect(x, "/cat.png"));
        handle("/to-other-loopback", x -> redirect(x, "http://127.0.0.2:" + port + "/cat.png"));
        handle("/to-private-name", x -> redirect(x, "http://intranet.test:" + port + "/cat.png"));
        handle("/loop", x -> redirect(x, "/loop"));
        handle("/slow.png", x -> {
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            send(x, 200, PNG);
        });
        images.setExecutor(Executors.newVirtualThreadPerTaskExecutor()); // /slow.png blocks its own thread only
        images.start();
    }

    @AfterAll
    static void stop() {
        release.countDown();
        images.stop(0);
    }

    private interface Handler {
        void handle(HttpExchange x) throws IOException;
    }

    private static void handle(String path, Handler h) {
        images.createContext(path, x -> {
            seen.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
            h.handle(x);
        });
    }

    private static void send(HttpExchange x, int status, byte[] body) throws IOException {
        x.sendResponseHeaders(status, body.length);
        try (OutputStream out = x.getResponseBody()) {
            out.write(body);
        }
    }

    private static void redirect(HttpExchange x, String location) throws IOException {
        x.getResponseHeaders().add("Location", location);
        x.sendResponseHeaders(302, -1);
        x.close();
    }

    private static int seen(String path) {
        AtomicInteger n = seen.get(path);
        return n == null ? 0 : n.get();
    }

    /** A fetcher with these settings, its client started for the test and stopped after. */
    private static <T> T with(ImageUrls settings, ImageFetcher.Names names, FetcherUse<T> use) throws Exception {
        ImageFetcher fetcher = new ImageFetcher(settings, names);
        fetcher.lifeCycle().start();
        try {
            return use.apply(fetcher);
        } finally {
            fetcher.lifeCycle().stop();
        }
    }

    private interface FetcherUse<T> {
        T apply(ImageFetcher f) throws Exception;
    }

    private static ChatRequest chat(ImageFetcher fetcher, String url) {
        return ChatRequest.parse(Fields.of(
                Json.parse(("{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": [{\"type\": "
                                + "\"image_url\", \"image_url\": {\"url\": \"" + url + "\"}}]}]}")
                        .getBytes(StandardCharsets.UTF_8)),
                SamplerStages.NONE,
                fetcher));
    }

    private static ApiError refused(ImageUrls settings, ImageFetcher.Names names, String url) throws Exception {
        return with(settings, names, f -> assertThrows(ApiError.class, () -> chat(f, url)));
    }

    private static ApiError refused(ImageUrls settings, String url) throws Exception {
        return refused(settings, InetAddress::getAllByName, url);
    }

    private static void assertSays(ApiError e, String... parts) {
        assertEquals(400, e.status());
        assertEquals("messages[0].content[0].image_url.url", e.param());
        for (String part : parts) {
            assertTrue(e.getMessage().contains(part), e.getMessage());
        }
    }

    @Test
    void withoutTheFlagAUrlIsRefusedAndNothingIsFetched() {
        int before = seen("/cat.png");
        ApiError e = assertThrows(ApiError.class, () -> chat(null, base + "/cat.png"));
        assertSays(e, "--allow-image-urls");
        assertEquals(before, seen("/cat.png"));
    }

    @Test
    void anAllowedUrlIsFetchedOnEveryDoorAsTheSameImage() throws Exception {
        with(LOOPBACK_ONE, InetAddress::getAllByName, f -> {
            ChatRequest openai = chat(f, base + "/cat.png");
            assertEquals(List.of(ChatImage.of(PNG)), openai.prompt().images());
            assertEquals(ChatImage.MARKER, openai.prompt().messages().getFirst().content());
            ChatRequest anthropic = MessagesRequest.parse(Fields.of(
                    Json.parse(("""
                    {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": [
                      {"type": "image", "source": {"type": "url", "url": "%s/cat.png"}}]}]}
                    """.formatted(base)).getBytes(StandardCharsets.UTF_8)), SamplerStages.NONE, f));
            assertEquals(List.of(ChatImage.of(PNG)), anthropic.prompt().images());
            ChatRequest responses = ResponsesRequest.parse(
                            Fields.of(
                                    Json.parse(("""
                    {"model": "m", "input": [{"role": "user", "content": [
                      {"type": "input_image", "image_url": "%s/to-cat"}]}]}
                    """.formatted(base)).getBytes(StandardCharsets.UTF_8)),
                                    SamplerStages.NONE,
                                    f),
                            new ResponseStore())
                    .chat();
            assertEquals(List.of(ChatImage.of(PNG)), responses.prompt().images()); // through a redirect
            return null;
        });
    }

    @Test
    void aPrivateAddressIsRefusedBeforeAnyConnection() throws Exception {
        int before = seen("/cat.png");
        ImageUrls publicOnly = ImageUrls.DEFAULTS.withAllowed(true);
        assertSays(
                refused(publicOnly, base + "/cat.png"),
                "resolves to 127.0.0.1, a loopback, private or reserved address",
                "--allow-image-url-net");
        // a name is checked by the addresses it resolves to
        ImageFetcher.Names intranet = host -> host.equals("intranet.test")
                ? new InetAddress[] {InetAddress.getByName("127.0.0.1")}
                : InetAddress.getAllByName(host);
        int port = images.getAddress().getPort();
        assertSays(
                refused(publicOnly, intranet, "http://intranet.test:" + port + "/cat.png"),
                "intranet.test resolves to 127.0.0.1");
        assertEquals(before, seen("/cat.png"), "no request reached the server");
    }

    @Test
    void everyRedirectHopIsCheckedAgain() throws Exception {
        int before = seen("/cat.png");
        assertSays(refused(LOOPBACK_ONE, base + "/to-other-loopback"), "resolves to 127.0.0.2");
        ImageFetcher.Names intranet = host -> host.equals("intranet.test")
                ? new InetAddress[] {InetAddress.getByName("10.1.2.3")}
                : InetAddress.getAllByName(host);
        assertSays(refused(LOOPBACK_ONE, intranet, base + "/to-private-name"), "intranet.test resolves to 10.1.2.3");
        assertEquals(before, seen("/cat.png"));
        assertSays(refused(LOOPBACK_ONE, base + "/loop"), "redirects more than 3 times");
        assertEquals(4, seen("/loop"), "the first request and three redirects, then no more");
    }

    @Test
    void theConnectionGoesWhereTheCheckedAddressIs() throws Exception {
        // A name that resolves to an allowed address once and to a private one afterwards (DNS
        // rebinding): the fetch resolves it once, checks that answer and connects there.
        AtomicInteger lookups = new AtomicInteger();
        ImageFetcher.Names rebinding = host -> {
            if (!host.equals("rebind.test")) {
                throw new UnknownHostException(host);
            }
            return new InetAddress[] {InetAddress.getByName(lookups.getAndIncrement() == 0 ? "127.0.0.1" : "10.9.9.9")};
        };
        int port = images.getAddress().getPort();
        ChatRequest r = with(LOOPBACK_ONE, rebinding, f -> chat(f, "http://rebind.test:" + port + "/cat.png"));
        assertEquals(List.of(ChatImage.of(PNG)), r.prompt().images());
        assertEquals(1, lookups.get());
    }

    @Test
    void aBodyOverTheLimitIsRefused() throws Exception {
        ImageUrls small = LOOPBACK_ONE.withLimits(1024, 5_000, 10_000, 3);
        assertSays(refused(small, base + "/big.png"), "is larger than 1024 bytes");
        assertSays(refused(small, base + "/big-chunked.png"), "is larger than 1024 bytes");
        // within the limit the same settings fetch
        assertEquals(
                List.of(ChatImage.of(PNG)),
                with(small, InetAddress::getAllByName, f -> chat(f, base + "/cat.png"))
                        .prompt()
                        .images());
    }

    @Test
    void aSlowServerIsCutAtTheTimeout() throws Exception {
        ImageUrls quick = LOOPBACK_ONE.withLimits(1 << 20, 500, 500, 3);
        long start = System.nanoTime();
        assertSays(refused(quick, base + "/slow.png"), "was not fetched within 500 ms");
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20), "cut at the limit, not the server's pace");
    }

    @Test
    void theFetchedBytesAreCheckedAsInlineImagesAre() throws Exception {
        assertSays(refused(LOOPBACK_ONE, base + "/page.html"), "is not a PNG, JPEG, GIF or BMP image");
        assertSays(refused(LOOPBACK_ONE, base + "/cut.png"), "truncated or malformed PNG");
        assertSays(refused(LOOPBACK_ONE, base + "/missing.png"), "answered 404");
        assertSays(refused(LOOPBACK_ONE, "ftp://127.0.0.1/cat.png"), "must be a data URI");
    }

    @Test
    void theSettingsReadNetworks() {
        assertTrue(ImageUrls.blocked(address("127.0.0.1")));
        assertTrue(ImageUrls.blocked(address("::1")));
        assertTrue(ImageUrls.blocked(address("::ffff:192.168.1.1")), "an IPv4-mapped address is its IPv4 address");
        assertTrue(ImageUrls.blocked(address("fe80::1")));
        assertTrue(ImageUrls.blocked(address("169.254.169.254")), "the cloud metadata address");
        assertTrue(ImageUrls.blocked(address("100.64.0.1")));
        assertTrue(!ImageUrls.blocked(address("8.8.8.8")));
        assertTrue(!ImageUrls.blocked(address("2606:4700::1111")));
        ImageUrls lan = ImageUrls.DEFAULTS.withAllowed(true).withPrivateNets(List.of("192.168.1.0/24"));
        assertTrue(lan.reachable(address("192.168.1.77")));
        assertTrue(!lan.reachable(address("192.168.2.77")));
        assertThrows(IllegalArgumentException.class, () -> lan.withPrivateNets(List.of("intranet.example/8")));
        assertThrows(IllegalArgumentException.class, () -> lan.withPrivateNets(List.of("10.0.0.0/33")));
    }

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** The flags: off by default, refused in each door's shape; on, the fetched image reaches the model. */
    @Test
    void theServeFlagsTurnFetchingOn() throws Exception {
        String model = TestServer.model("tiny-text", SynthSpec.tiny("qwen")).toString();
        String body = """
                {"model": "tiny-text", "max_tokens": 4, "messages": [{"role": "user", "content": [
                  {"type": "image", "source": {"type": "url", "url": "%s/cat.png"}}]}]}
                """.formatted(base);
        try (TestServer off = TestServer.start("-m", model, "-c", "256", "-t", "1")) {
            HttpResponse<String> r = off.http().post("/v1/messages", body);
            assertEquals(400, r.statusCode(), r.body());
            JsonNode error = Json.parse(r.body().getBytes(StandardCharsets.UTF_8));
            assertEquals("error", error.get("type").asText(), r.body());
            assertTrue(error.get("error").get("message").asText().contains("--allow-image-urls"), r.body());
        }
        int before = seen("/cat.png");
        try (TestServer on = TestServer.start(
                "-m", model, "-c", "256", "-t", "1", "--allow-image-urls", "--allow-image-url-net", "127.0.0.1/32")) {
            Http http = on.http();
            HttpResponse<String> r = http.post("/v1/messages", body);
            // fetched and checked; the text model then refuses it for want of a projector
            assertEquals(400, r.statusCode(), r.body());
            assertTrue(r.body().contains("has no vision projector"), r.body());
            assertEquals(before + 1, seen("/cat.png"));
        }
    }
}
