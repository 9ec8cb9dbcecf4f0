package forge.http.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.BufferUtil;

/**
 * Notices a client that went away while its non-streaming request waits for the whole answer.
 *
 * <p>Jetty learns of a closed connection only when it reads or writes, and while a handler waits
 * for the engine it does neither, so {@code Request.addFailureListener} never fires (measured:
 * {@code EngineEndToEndTest}). A streaming response finds out at its next write; a whole one has
 * nothing to write until the end. So the waiting handler probes the connection every few hundred
 * milliseconds with a non-blocking read of one byte: {@code -1} means the client closed it.
 *
 * <p>The read is safe because after a POST a client sends nothing until the response: RFC 9112
 * §9.3.2 says a client should not pipeline after a non-idempotent method, and none of the usual
 * clients pipeline at all. Should bytes come anyway, they cannot be handed back to Jetty's parser,
 * so the response closes the connection ({@code Connection: close}) and probing stops.
 */
final class ClientWatch {

    private final Request request;
    private final Response response;
    private final ByteBuffer probe = BufferUtil.allocate(1);
    private boolean stopped;

    ClientWatch(Request request, Response response) {
        this.request = request;
        this.response = response;
    }

    /** Whether the client has closed the connection. Call from the handler's thread only. */
    boolean gone() {
        if (stopped) {
            return false;
        }
        EndPoint endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
        if (!endPoint.isOpen() || endPoint.isInputShutdown()) {
            return true;
        }
        if (endPoint.isFillInterested()) {
            return false; // Jetty itself is reading: it will see the close
        }
        try {
            BufferUtil.clear(probe);
            int n = endPoint.fill(probe);
            if (n < 0) {
                return true;
            }
            if (n > 0) {
                stopped = true;
                response.getHeaders().put(HttpHeader.CONNECTION, "close");
            }
            return false;
        } catch (IOException e) {
            return true; // reset by the peer
        }
    }
}
