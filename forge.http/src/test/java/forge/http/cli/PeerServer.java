package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * llama.cpp's own {@code llama-server} of the same release (the peer that {@code bench/run.sh}
 * builds into {@code ~/.cache/forge/peer/build}), run beside a {@link TestServer} by the
 * {@code peer}-tagged tests that compare the two. Its output goes to {@code llama-server.log} in
 * the test's folder, which a failed start quotes; closing it stops the process.
 */
final class PeerServer implements AutoCloseable {

    static final Path PEER = Path.of(System.getenv("HOME"), ".cache/forge/peer/build/bin/llama-server");

    private final Process process;
    private final Http http;
    private final Path log;

    private PeerServer(Process process, int port, Path log) {
        this.process = process;
        this.http = new Http("http://127.0.0.1:" + port);
        this.log = log;
    }

    /** Starts {@code llama-server args} on a free loopback port; {@link #healthy()} waits for it. */
    static PeerServer start(Path dir, List<String> args) throws IOException {
        assertTrue(Files.isExecutable(PEER), "llama-server is not built at " + PEER + " (bench/run.sh builds it)");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        ProcessBuilder pb = new ProcessBuilder(PEER.toString());
        pb.command().addAll(args);
        pb.command().addAll(List.of("--host", "127.0.0.1", "--port", Integer.toString(port)));
        pb.environment().put("LD_LIBRARY_PATH", PEER.getParent().toString());
        Path log = dir.resolve("llama-server.log");
        pb.redirectErrorStream(true).redirectOutput(log.toFile());
        return new PeerServer(pb.start(), port, log);
    }

    /** Polls the peer's /health until it answers 200 (its model loaded), with a deadline; then its client. */
    Http healthy() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            assertTrue(process.isAlive(), "llama-server exited: " + Files.readString(log));
            try {
                if (http.get("/health").statusCode() == 200) {
                    return http;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            assertTrue(System.nanoTime() < deadline, "llama-server not healthy in 60 s");
            Thread.sleep(100); // polling the peer's readiness, with a deadline (STYLE.md rule 22)
        }
    }

    /** Stops the peer and waits up to 10 s for it to exit (an interrupt stops the wait, and is kept). */
    @Override
    public void close() {
        process.destroy();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // an AutoCloseable's close must not throw InterruptedException
        }
    }
}
