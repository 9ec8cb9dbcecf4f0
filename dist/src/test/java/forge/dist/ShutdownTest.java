package forge.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM to the image's {@code forge serve}, as a supervisor or {@code docker stop} sends it: the
 * server drains (503 on /health and on new work), lets running requests finish within
 * {@code --shutdown-grace}, cancels the rest with an error event, and exits 0; a second SIGTERM
 * exits at once. The model is wide enough that a 400-token answer takes seconds on two cores.
 */
class ShutdownTest {

    /** Decodes at a few dozen tokens per second here: a long answer outlives the test's checks. */
    private static final List<String> SLOW_MODEL =
            List.of("--embd", "512", "--layers", "8", "--ffn", "1024", "--heads", "8", "--kv-heads", "2");

    private static final String STREAM = """
            {"model": "tiny", "stream": true, "max_tokens": %d, "ignore_eos": true,
             "messages": [{"role": "user", "content": "Tell me a story."}]}""";

    private final HttpClient http = HttpClient.newHttpClient();

    private ChatStream stream(ImageServer server, int tokens) throws Exception {
        return ChatStream.start(http, server.base, STREAM.formatted(tokens));
    }

    private int status(ImageServer server, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.base + path));
        b = body == null
                ? b.GET()
                : b.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** Polls /health until the server says it is draining (503): SIGTERM is handled asynchronously. */
    private void awaitDraining(ImageServer server) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int last;
        while ((last = status(server, "/health", null)) != 503) {
            assertTrue(
                    System.nanoTime() < deadline, "still " + last + " on /health 30 s after SIGTERM: " + server.log());
            Thread.sleep(20);
        }
    }

    @Test
    void runningRequestsFinishWithinTheGraceWhileNewOnesAre503(@TempDir Path work) throws Exception {
        // A grace far above the answer's time whatever the machine's load: 200 tokens take seconds here,
        // but a 180 s grace expired once on a machine running a dozen builds beside the test (< 2 tokens/s).
        try (ImageServer server = ImageServer.start(work, SLOW_MODEL, "--shutdown-grace", "30m")) {
            ChatStream running = stream(server, 200);
            server.terminate();
            awaitDraining(server);
            assertEquals(
                    503,
                    status(
                            server,
                            "/v1/chat/completions",
                            STREAM.formatted(2).replace("\"stream\": true", "\"stream\": false")));
            List<String> lines = running.lines().get(30, TimeUnit.MINUTES);
            assertEquals("data: [DONE]", lines.getLast(), lines.toString());
            assertTrue(lines.get(lines.size() - 2).contains("\"finish_reason\":\"length\""), lines.toString());
            assertTrue(lines.stream().noneMatch(l -> l.contains("\"error\"")), lines.toString());
            assertEquals(0, server.exitCode(60), server.log());
        }
    }

    @Test
    void whatOutlivesTheGraceIsCancelledWithAnErrorEvent(@TempDir Path work) throws Exception {
        try (ImageServer server = ImageServer.start(work, SLOW_MODEL, "--shutdown-grace", "200ms")) {
            ChatStream running = stream(server, 900);
            long t0 = System.nanoTime();
            server.terminate();
            List<String> lines = running.lines().get(60, TimeUnit.SECONDS);
            assertEquals("data: [DONE]", lines.getLast(), lines.toString());
            assertTrue(lines.get(lines.size() - 2).contains("\"error\""), lines.toString());
            assertEquals(0, server.exitCode(30), server.log());
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(20), "exited soon after the grace");
        }
    }

    @Test
    void aSecondSigtermExitsAtOnce(@TempDir Path work) throws Exception {
        try (ImageServer server = ImageServer.start(work, SLOW_MODEL, "--shutdown-grace", "120s")) {
            ChatStream running = stream(server, 900);
            server.terminate();
            awaitDraining(server); // the first SIGTERM has been handled
            long t0 = System.nanoTime();
            server.terminate();
            assertEquals(1, server.exitCode(10), server.log());
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(10));
            running.lines().get(30, TimeUnit.SECONDS);
        }
    }
}
