package forge.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;

/**
 * The HTTP side: chat completions, streamed or not, timed from just before the request is sent.
 * One {@link HttpClient} (HTTP/1.1 keep-alive, as editor integrations use; both servers speak it)
 * on virtual threads, shared by all clients of a workload.
 */
public final class ChatClient implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final HttpClient http;
    private final Duration timeout;

    /** @param timeout the longest one request may take */
    public ChatClient(Duration timeout) {
        this.timeout = timeout;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .executor(executor)
                .build();
    }

    /**
     * A non-streamed chat completion. A request that got no byte back because it went out on a
     * kept-alive connection the server had just closed (llama-server closes idle ones after 5 s,
     * which the interleaving reaches) is sent again, once, and timed from then: that is the client
     * library's race, not the server's latency. Both {@code complete} and {@code stream} do this.
     */
    public Completion complete(Target target, ObjectNode body) {
        Completion first = completeOnce(target, body);
        return closedWhileIdle(first) ? completeOnce(target, body) : first;
    }

    /** A request that got no byte back: it went out on a connection the server had just closed. */
    private static boolean closedWhileIdle(Completion c) {
        return !c.ok() && c.error().contains("received no bytes");
    }

    private Completion completeOnce(Target target, ObjectNode body) {
        HttpRequest request = post(target, body);
        long start = System.nanoTime();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            double ms = ChatStream.ms(System.nanoTime() - start);
            return ChatStream.fromBody(response.statusCode(), ms, response.body());
        } catch (IOException e) {
            return Completion.failed(0, ChatStream.ms(System.nanoTime() - start), e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Completion.failed(0, ChatStream.ms(System.nanoTime() - start), "interrupted");
        }
    }

    /** A streamed chat completion: the SSE events are timed as their lines arrive. */
    public Completion stream(Target target, ObjectNode body) {
        Completion first = streamOnce(target, body);
        return closedWhileIdle(first) ? streamOnce(target, body) : first;
    }

    private Completion streamOnce(Target target, ObjectNode body) {
        HttpRequest request = post(target, body);
        long start = System.nanoTime();
        ChatStream stream = new ChatStream(start);
        SseParser sse = new SseParser();
        try {
            HttpResponse<Stream<String>> response = http.send(request, HttpResponse.BodyHandlers.ofLines());
            int status = response.statusCode();
            try (Stream<String> lines = response.body()) {
                if (status != 200) {
                    StringBuilder text = new StringBuilder();
                    lines.forEach(text::append);
                    return ChatStream.fromBody(status, ChatStream.ms(System.nanoTime() - start), text.toString());
                }
                for (Iterator<String> it = lines.iterator(); it.hasNext(); ) {
                    String line = it.next();
                    long now = System.nanoTime();
                    sse.line(line).ifPresent(data -> stream.event(data, now));
                }
            }
            long end = System.nanoTime();
            sse.finish().ifPresent(data -> stream.event(data, end));
            return stream.result(status, end);
        } catch (IOException | RuntimeException e) {
            // ofLines() reports a broken stream as an UncheckedIOException from the iterator.
            return Completion.failed(0, ChatStream.ms(System.nanoTime() - start), e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Completion.failed(0, ChatStream.ms(System.nanoTime() - start), "interrupted");
        }
    }

    /** The first model id of {@code GET /v1/models}. */
    public String firstModelId(URI base) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(Target.resolve(Target.requireLoopback(base), "/v1/models"))
                .timeout(Duration.ofSeconds(10))
                .GET()
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("GET /v1/models on " + base + ": HTTP " + response.statusCode());
        }
        JsonNode data = JSON.readTree(response.body()).path("data");
        if (!data.isArray() || data.isEmpty()) {
            throw new IOException("GET /v1/models on " + base + " lists no model");
        }
        return data.get(0).path("id").asText();
    }

    /** The status of {@code GET /health}, or 0 when nothing answers. */
    public int health(URI base) {
        HttpRequest request = HttpRequest.newBuilder(Target.resolve(Target.requireLoopback(base), "/health"))
                .timeout(Duration.ofSeconds(2))
                .GET()
                .build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    private HttpRequest post(Target target, ObjectNode body) {
        byte[] json;
        try {
            json = JSON.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return HttpRequest.newBuilder(target.resolve("/v1/chat/completions"))
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(json))
                .build();
    }

    @Override
    public void close() {
        http.close();
        executor.close();
    }
}
