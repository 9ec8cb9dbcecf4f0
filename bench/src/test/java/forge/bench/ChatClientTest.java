package forge.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The client over real HTTP, against a stand-in server on loopback (the JDK's own) that replays
 * the recorded llama-server stream with a pause before the first token and between events.
 */
class ChatClientTest {

    static final long FIRST_TOKEN_MS = 150;
    static final long BETWEEN_MS = 20;

    static HttpServer server;
    static String recorded;
    static URI base;

    @BeforeAll
    static void start() throws IOException {
        recorded = ChatStreamTest.resource("llama-server-stream.txt");
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/health", ex -> send(ex, 200, "{\"status\":\"ok\"}"));
        server.createContext("/v1/models", ex -> send(ex, 200, "{\"object\":\"list\",\"data\":[{\"id\":\"tiny\"}]}"));
        server.createContext("/v1/chat/completions", ex -> {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            if (body.contains("\"model\":\"missing\"")) {
                send(ex, 404, "{\"error\":{\"message\":\"model missing not found\"}}");
            } else if (!body.contains("\"stream\":true")) {
                send(
                        ex,
                        200,
                        "{\"choices\":[{\"message\":{\"content\":\"x\"}}],\"usage\":{\"completion_tokens\":5,"
                                + "\"prompt_tokens\":31}}");
            } else if (!body.contains("\"include_usage\":true") || !body.contains("\"ignore_eos\":true")) {
                send(ex, 400, "{\"error\":{\"message\":\"the stand-in wants include_usage and ignore_eos\"}}");
            } else {
                ex.getResponseHeaders().add("Content-Type", "text/event-stream");
                ex.sendResponseHeaders(200, 0);
                try (OutputStream out = ex.getResponseBody()) {
                    List<String> events = SseParserTest.events(recorded);
                    sleep(FIRST_TOKEN_MS);
                    for (String e : events) {
                        out.write(("data: " + e + "\n\n").getBytes(StandardCharsets.UTF_8));
                        out.flush();
                        sleep(BETWEEN_MS);
                    }
                }
            }
        });
        server.start();
        base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @AfterAll
    static void stop() {
        server.stop(0);
    }

    @Test
    void streamIsTimedAsItArrives() {
        try (ChatClient client = new ChatClient(Duration.ofSeconds(10))) {
            Target t = new Target("peer", base, "tiny");
            Completion c = client.stream(t, Prompts.chat("tiny", "s", "u", 5, true));
            assertTrue(c.ok(), c.error());
            // the recorded llama-server stream: 6 tokens generated for a 39-token prompt
            assertEquals(6, c.completionTokens());
            assertEquals(39, c.promptTokens());
            // The first content is the second event, written after the pause and one gap. Arrival
            // gaps can be shorter than write gaps (TCP may hold a small segment back), so only
            // the lower bounds that no buffering can break are checked.
            assertTrue(c.ttftMs() >= FIRST_TOKEN_MS + BETWEEN_MS, "ttft " + c.ttftMs());
            assertTrue(c.decodeMs() > 0, "decode " + c.decodeMs());
            int events = SseParserTest.events(recorded).size();
            assertTrue(c.latencyMs() >= FIRST_TOKEN_MS + (events - 1) * BETWEEN_MS, "latency " + c.latencyMs());
        }
    }

    @Test
    void nonStreamedAndErrorsAndDiscovery() throws Exception {
        try (ChatClient client = new ChatClient(Duration.ofSeconds(10))) {
            Target t = new Target("peer", base, "tiny");
            Completion c = client.complete(t, Prompts.chat("tiny", "s", "u", 5, false));
            assertTrue(c.ok(), c.error());
            assertEquals(5, c.completionTokens());
            Completion missing = client.stream(t, Prompts.chat("missing", "s", "u", 5, true));
            assertFalse(missing.ok());
            assertEquals(404, missing.status());
            assertEquals("model missing not found", missing.error());
            assertEquals("tiny", client.firstModelId(base));
            assertEquals(200, client.health(base));
            Completion refused = client.stream(
                    new Target("peer", URI.create("http://127.0.0.1:1"), "x"), Prompts.chat("x", "s", "u", 5, true));
            assertFalse(refused.ok());
            assertEquals(0, refused.status());
        }
    }

    @Test
    void aConnectionClosedBeforeAnyResponseIsTriedOnceMore() throws Exception {
        // A server that closes the first connection after reading the request, without a byte back
        // (what a kept-alive connection hitting llama-server's idle close looks like), then answers.
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            java.util.concurrent.atomic.AtomicInteger connections = new java.util.concurrent.atomic.AtomicInteger();
            Thread.ofVirtual().start(() -> {
                while (!socket.isClosed()) {
                    try (java.net.Socket s = socket.accept()) {
                        var in = new java.io.BufferedReader(
                                new java.io.InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
                        int length = 0;
                        for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
                            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                                length = Integer.parseInt(line.substring(15).trim());
                            }
                        }
                        in.skip(length);
                        if (connections.incrementAndGet() == 1) {
                            continue; // closed, nothing sent
                        }
                        String json =
                                "{\"choices\":[{\"message\":{\"content\":\"x\"}}],\"usage\":{\"completion_tokens\":5,\"prompt_tokens\":31}}";
                        s.getOutputStream()
                                .write(
                                        ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: "
                                                        + json.length() + "\r\n\r\n" + json)
                                                .getBytes(StandardCharsets.UTF_8));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            try (ChatClient client = new ChatClient(Duration.ofSeconds(10))) {
                Target t = new Target("peer", URI.create("http://127.0.0.1:" + socket.getLocalPort()), "tiny");
                Completion c = client.complete(t, Prompts.chat("tiny", "s", "u", 5, false));
                assertTrue(c.ok(), c.error());
                assertEquals(5, c.completionTokens());
                assertEquals(2, connections.get());
            }
        }
    }

    private static void send(HttpExchange ex, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
