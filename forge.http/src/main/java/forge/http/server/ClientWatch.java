package forge.http.server;

import forge.runtime.engine.Generation;
import forge.runtime.engine.GenerationEvent;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.BufferUtil;

/**
 * Notices a client that went away while its request waits for the whole answer, or between the
 * events of a stream ({@code Run}).
 *
 * <p>Jetty learns of a closed connection only when it reads or writes, and while a handler waits
 * for the engine it does neither, so {@code Request.addFailureListener} never fires (measured:
 * {@code EngineEndToEndTest}). A streaming response finds out at a write, but only at the one after
 * the first the kernel still accepts; a whole one has nothing to write until the end. So the
 * waiting handler probes the connection every few hundred
 * milliseconds with a non-blocking read of one byte: {@code -1} means the client closed it.
 *
 * <p>The read is safe because after a POST a client sends nothing until the response: RFC 9112
 * §9.3.2 says a client should not pipeline after a non-idempotent method, and none of the usual
 * clients pipeline at all. Should bytes come anyway, they cannot be handed back to Jetty's parser,
 * so the response closes the connection ({@code Connection: close}) and probing stops.
 */
final class ClientWatch {

    /** How often a handler waiting for a whole answer checks that its client is still there. */
    static final long PROBE_MS = 50;

    private final Request request;
    private final Response response;
    private final ByteBuffer probe = BufferUtil.allocate(1);
    private boolean stopped;
    private long nextProbe = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PROBE_MS);

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
                if (!response.isCommitted()) {
                    response.getHeaders().put(HttpHeader.CONNECTION, "close");
                }
            }
            return false;
        } catch (IOException e) {
            return true; // reset by the peer
        }
    }

    /**
     * The next event of {@code generation}, probing the client on a clock while waiting: a fast model
     * sends events without pause, so probing only when none came would never notice the client
     * leaving. Once it is gone, every generation of the request is cancelled; the engine frees their
     * slots at its next step, and their {@code Done(CANCELLED)} follows.
     */
    GenerationEvent next(Generation generation, List<Generation> all) throws InterruptedException {
        // The whole answer is written at the end: the engine need not wake this thread per token.
        generation.deferText();
        while (true) {
            GenerationEvent event = generation.next(PROBE_MS, TimeUnit.MILLISECONDS);
            if (System.nanoTime() - nextProbe >= 0) {
                nextProbe = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PROBE_MS);
                if (gone()) {
                    all.forEach(Generation::cancel);
                }
            }
            if (event != null) {
                return event;
            }
        }
    }
}
