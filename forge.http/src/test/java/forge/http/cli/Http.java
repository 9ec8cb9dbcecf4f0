package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The end-to-end tests' HTTP client for one server (a real {@link HttpClient}, as an OpenAI SDK
 * would use), and the readers of what it answers: JSON bodies and server-sent events. Responses
 * come back whole, status and headers included, so a test asserts on whatever it needs.
 */
public final class Http {

    /** The tests' one JSON mapper. */
    public static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient client = HttpClient.newHttpClient();
    private final String base;

    /** A client for the server at {@code base}, like {@code http://127.0.0.1:8080}. */
    public Http(String base) {
        this.base = base;
    }

    /** {@code http://127.0.0.1:PORT}, without a trailing slash. */
    public String base() {
        return base;
    }

    /**
     * A request for {@code path} (query included), to finish and {@link #send} when a test needs
     * a method or header of its own. The path is appended as written, so an encoded or odd path
     * reaches the server as the test spelled it.
     */
    public HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(base + path));
    }

    /** A POST of {@code json} to {@code path}, to finish and {@link #send}. */
    public HttpRequest.Builder postRequest(String path, String json) {
        return request(path).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json));
    }

    /** Sends the request and reads the whole body as text. */
    public HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    public HttpResponse<String> get(String path) throws Exception {
        return send(request(path).GET());
    }

    public HttpResponse<String> post(String path, String json) throws Exception {
        return send(postRequest(path, json));
    }

    /** POSTs {@code json} and returns as soon as the headers arrive: the body's lines come as the server writes them. */
    public HttpResponse<Stream<String>> stream(String path, String json) throws Exception {
        return client.send(postRequest(path, json).build(), HttpResponse.BodyHandlers.ofLines());
    }

    /** The body as JSON. */
    public static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }

    /** The body as JSON, after asserting a 200. */
    public static JsonNode ok(HttpResponse<String> r) throws Exception {
        assertEquals(200, r.statusCode(), r.body());
        return json(r);
    }

    /**
     * The JSON chunks of a 200 event stream, in order, after asserting that {@code data: [DONE]}
     * ends it; comments (keep-alives) are skipped.
     */
    public static List<JsonNode> events(HttpResponse<String> r) throws Exception {
        assertEquals(200, r.statusCode(), r.body());
        List<JsonNode> out = new ArrayList<>();
        String[] blocks = r.body().split("\n\n");
        assertEquals("data: [DONE]", blocks[blocks.length - 1]);
        for (int i = 0; i < blocks.length - 1; i++) {
            if (!blocks[i].startsWith(":")) {
                out.add(JSON.readTree(blocks[i].substring("data: ".length())));
            }
        }
        return out;
    }
}
