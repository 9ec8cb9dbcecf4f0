package forge.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A started streaming chat: its {@code data:} lines as they arrive, read on another thread until
 * the server ends the stream, and the response's headers.
 *
 * @param lines      every {@code data:} line, once the stream ended (an I/O failure is the last line, {@code io: ...})
 * @param firstChunk done once the first chunk with content arrived
 * @param headers    the response's headers
 */
record ChatStream(
        CompletableFuture<List<String>> lines, CompletableFuture<Void> firstChunk, java.net.http.HttpHeaders headers) {

    /** POSTs {@code body} (a streaming chat) to {@code base}/v1/chat/completions; returns once its first content chunk arrived. */
    static ChatStream start(HttpClient http, String base, String body) throws Exception {
        HttpResponse<java.io.InputStream> r = http.send(
                HttpRequest.newBuilder(URI.create(base + "/v1/chat/completions"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, r.statusCode());
        CompletableFuture<Void> first = new CompletableFuture<>();
        CompletableFuture<List<String>> lines = CompletableFuture.supplyAsync(() -> {
            List<String> out = new ArrayList<>();
            try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.startsWith("data: ")) {
                        out.add(line);
                        if (line.contains("\"content\":\"") && !line.contains("\"content\":\"\"")) {
                            first.complete(null);
                        }
                    }
                }
            } catch (java.io.IOException e) {
                out.add("io: " + e);
            }
            first.complete(null);
            return out;
        });
        first.get(120, TimeUnit.SECONDS);
        return new ChatStream(lines, first, r.headers());
    }

    /** A response header's value, if any. */
    Optional<String> header(String name) {
        return headers.firstValue(name);
    }
}
