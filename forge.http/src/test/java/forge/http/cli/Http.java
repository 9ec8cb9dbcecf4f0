package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
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

    /** POSTs {@code json} and returns once the headers arrive, the body as raw bytes: a test may read part of it and close it. */
    public HttpResponse<InputStream> open(String path, String json) throws Exception {
        return client.send(postRequest(path, json).build(), HttpResponse.BodyHandlers.ofInputStream());
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

    /** The {@code error} object of a 400, after asserting the status. */
    public static JsonNode badRequest(HttpResponse<String> r) throws Exception {
        assertEquals(400, r.statusCode(), r.body());
        return json(r).get("error");
    }

    /** Asserts a 400 whose error names the field {@code param}; a failure names the route. */
    public static void assertParam(HttpResponse<String> r, String param) throws Exception {
        assertParam(r, param, r.request().method() + " " + r.request().uri().getPath());
    }

    /** Asserts a 400 whose error names the field {@code param}; a failure names {@code what}. */
    public static void assertParam(HttpResponse<String> r, String param, String what) throws Exception {
        String context = what + ": " + r.body();
        assertEquals(400, r.statusCode(), context);
        assertEquals(param, json(r).get("error").get("param").asText(), context);
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

    /** One named server-sent event: its {@code event:} name and its {@code data:} JSON. */
    public record Event(String name, JsonNode data) {}

    /**
     * The named events of a 200 event stream (Anthropic's and Responses' streams), in order, read
     * byte by byte: each is exactly {@code event: NAME\ndata: JSON\n\n}, its JSON's {@code type} is
     * its name, and nothing else is in the stream (no {@code [DONE]}, no comment).
     */
    public static List<Event> namedEvents(HttpResponse<String> r) throws Exception {
        assertEquals(200, r.statusCode(), r.body());
        return namedEvents(r.body());
    }

    /** The named events of a stream's body, read as {@link #namedEvents(HttpResponse)} reads them. */
    public static List<Event> namedEvents(String body) throws Exception {
        List<Event> out = new ArrayList<>();
        int at = 0;
        while (at < body.length()) {
            int end = body.indexOf("\n\n", at);
            org.junit.jupiter.api.Assertions.assertTrue(
                    end > 0, "an event ends with a blank line: " + body.substring(at));
            String block = body.substring(at, end);
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("event: ([a-z_.]+)\ndata: (\\{.*})")
                    .matcher(block);
            org.junit.jupiter.api.Assertions.assertTrue(m.matches(), "not an event: " + block);
            JsonNode data = JSON.readTree(m.group(2));
            assertEquals(m.group(1), data.get("type").asText(), block);
            out.add(new Event(m.group(1), data));
            at = end + 2;
        }
        return out;
    }

    /**
     * One HTTP/1.1 exchange written by hand on a socket of its own, so that the request line, Host
     * and the other headers are exactly what a test (or a browser) sends: the whole answer, status
     * line first.
     */
    public String raw(String requestLine, String host, List<String> headers, String body) throws Exception {
        try (java.net.Socket socket =
                new java.net.Socket("127.0.0.1", URI.create(base).getPort())) {
            socket.setSoTimeout(30_000);
            StringBuilder head =
                    new StringBuilder(requestLine + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n");
            headers.forEach(h -> head.append(h).append("\r\n"));
            byte[] bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            head.append("Content-Length: ").append(bytes.length).append("\r\n\r\n");
            var out = socket.getOutputStream();
            out.write(head.toString().getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            out.write(bytes);
            out.flush();
            return new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }
}
