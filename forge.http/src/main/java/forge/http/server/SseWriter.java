package forge.http.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.Callback;

/**
 * Server-sent events on a Jetty response, for every streaming route: one {@code data:} event per
 * JSON object, SSE comments while nothing happens, and OpenAI's closing {@code data: [DONE]}. Each
 * write blocks the request's virtual thread until the bytes are out, so a slow client slows only
 * its own stream. Routes whose events carry a name (Anthropic's and Responses' {@code event:}
 * lines) write them with {@link #event} and end with {@link #end}. Every stream begins with
 * {@link #start}.
 */
final class SseWriter {

    private static final ByteBuffer DONE = ByteBuffer.wrap("data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII))
            .asReadOnlyBuffer();
    private static final ByteBuffer KEEP_ALIVE = ByteBuffer.wrap(": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII))
            .asReadOnlyBuffer();

    private SseWriter() {}

    /** The status line and headers of every stream: 200, {@code text/event-stream}, never cached. */
    static void start(Response response) {
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
    }

    /** An SSE comment, which every client skips: it keeps a silent stream's connection alive. */
    static void keepAlive(Response response) throws IOException {
        write(response, KEEP_ALIVE.duplicate());
    }

    /** Writes bytes of the stream and waits until they are out. */
    static void write(Response response, ByteBuffer buffer) throws IOException {
        try (Blocker.Callback blocker = Blocker.callback()) {
            response.write(false, buffer, blocker);
            blocker.block();
        }
    }

    /** One {@code data:} event of {@code event}'s JSON. */
    static void send(Response response, ObjectNode event) throws IOException {
        byte[] json = Json.bytes(event);
        ByteBuffer buffer = ByteBuffer.allocate(json.length + 8);
        buffer.put("data: ".getBytes(StandardCharsets.US_ASCII))
                .put(json)
                .put((byte) '\n')
                .put((byte) '\n')
                .flip();
        write(response, buffer);
    }

    /** One named event, {@code event: NAME} then its {@code data:} line. */
    static void event(Response response, String name, ObjectNode data) throws IOException {
        byte[] json = Json.bytes(data);
        byte[] head = ("event: " + name + "\ndata: ").getBytes(StandardCharsets.US_ASCII);
        ByteBuffer buffer = ByteBuffer.allocate(head.length + json.length + 2);
        buffer.put(head).put(json).put((byte) '\n').put((byte) '\n').flip();
        write(response, buffer);
    }

    /** Ends a stream that has no closing sentinel (Anthropic's, Responses'), completing {@code callback}. */
    static void end(Response response, Callback callback) {
        response.write(true, ByteBuffer.allocate(0), callback);
    }

    /** How an OpenAI stream takes its run's next event: {@link Run}'s or {@link ChatRun}'s {@code next}. */
    interface Events<E> {
        E next(Run.Idle idle, long keepAliveMillis) throws InterruptedException, IOException;
    }

    /**
     * The next event of an OpenAI stream, with a keep-alive comment every {@code keepAliveMillis}
     * while none comes; null when the run failed, its error sent as the stream's end ({@link #failed}).
     */
    static <E> E next(Events<E> events, long keepAliveMillis, Response response, Callback callback)
            throws InterruptedException, IOException {
        try {
            return events.next(() -> keepAlive(response), keepAliveMillis);
        } catch (ApiError e) {
            failed(response, e, callback);
            return null;
        }
    }

    /**
     * Ends an OpenAI stream that failed after its 200, whose status cannot change: one final
     * {@code data:} event of the error, then {@code data: [DONE]}.
     */
    static void failed(Response response, ApiError error, Callback callback) throws IOException {
        send(response, error.toJson());
        finish(response, callback);
    }

    /** Ends an OpenAI stream with {@code data: [DONE]}, completing {@code callback} once written. */
    static void finish(Response response, Callback callback) {
        response.write(true, DONE.duplicate(), callback);
    }
}
