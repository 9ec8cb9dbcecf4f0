package forge.dist;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The finished jlink image's {@code forge serve} as a child process with a bare environment, as
 * a user runs it; the clients under test talk to it over loopback HTTP.
 */
final class ImageServer implements AutoCloseable {

    final String base;
    private final Process process;
    private final Path log;

    private ImageServer(Process process, String base, Path log) {
        this.process = process;
        this.base = base;
        this.log = log;
    }

    /** Makes a synthetic model with the image's own {@code forge model synth}, then serves it. */
    static ImageServer start(Path work, String... extraArgs) throws Exception {
        return start(work, List.of(), extraArgs);
    }

    /** As {@link #start(Path, String...)}, with {@code synthArgs} giving the model's shape. */
    static ImageServer start(Path work, List<String> synthArgs, String... extraArgs) throws Exception {
        return startWithJvm(work, synthArgs, "", extraArgs);
    }

    /**
     * As {@link #start(Path, List, String...)}, the server's JVM with {@code jvmOptions} (the
     * launcher's {@code FORGE_OPTS}; "" for none). The serve defaults {@code -c 2048 -np 2 -t 2}
     * apply unless {@code extraArgs} gives its own.
     */
    static ImageServer startWithJvm(Path work, List<String> synthArgs, String jvmOptions, String... extraArgs)
            throws Exception {
        Path forge = launcher();
        Path home = Files.createDirectories(work.resolve("home"));
        Path model = work.resolve("tiny.gguf");
        List<String> synth = new ArrayList<>(List.of(forge.toString(), "model", "synth", "-o", model.toString()));
        synth.addAll(synthArgs);
        run(home, synth, work.resolve("synth.log"));
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        List<String> cmd = new ArrayList<>(List.of(
                forge.toString(), "serve", "-m", model.toString(), "--alias", "tiny", "--port", String.valueOf(port)));
        // The defaults, unless the test gives its own (picocli refuses an option given twice).
        List<String> extra = List.of(extraArgs);
        for (String[] option : new String[][] {{"-c", "2048"}, {"-np", "2"}, {"-t", "2"}}) {
            if (!extra.contains(option[0])) {
                cmd.addAll(List.of(option));
            }
        }
        cmd.addAll(extra);
        Path log = work.resolve("server.log");
        ProcessBuilder b = builder(home, cmd, log);
        if (!jvmOptions.isEmpty()) {
            b.environment().put("FORGE_OPTS", jvmOptions);
        }
        Process p = b.start();
        ImageServer server = new ImageServer(p, "http://127.0.0.1:" + port, log);
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                if (http.send(
                                        HttpRequest.newBuilder(URI.create(server.base + "/health"))
                                                .build(),
                                        HttpResponse.BodyHandlers.discarding())
                                .statusCode()
                        == 200) {
                    return server;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (!p.isAlive() || System.nanoTime() > deadline) {
                server.close();
                throw new IllegalStateException("the server did not come up:\n" + Files.readString(log));
            }
            Thread.sleep(200);
        }
    }

    /**
     * Runs the image's {@code forge ARGS...} to its end (within 120 s) with a bare environment and
     * {@code home} as {@code HOME}; its exit code and output.
     */
    static Ran command(Path home, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(launcher().toString()));
        cmd.addAll(List.of(args));
        Path log = Files.createTempFile(home, "forge", ".log");
        Process p = builder(home, cmd, log).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(cmd + " did not finish:\n" + Files.readString(log));
        }
        return new Ran(p.exitValue(), Files.readString(log));
    }

    /** A finished command: its exit code and output. */
    record Ran(int exitCode, String output) {}

    private static Path launcher() {
        Path image = Path.of(System.getProperty("forge.image.dir", "target/forge"));
        Path forge = image.resolve("bin/forge");
        if (!Files.isExecutable(forge)) {
            throw new IllegalStateException("no image at " + image + ": run mvn package first");
        }
        return forge;
    }

    /** The server's process id: the launcher execs the image's java, so this is the JVM's own. */
    long pid() {
        return process.pid();
    }

    /** Sends the server SIGTERM, as a supervisor stopping it does. */
    void terminate() {
        process.destroy();
    }

    /** The server's exit code, once it exited within {@code seconds}; else an AssertionError with its log. */
    int exitCode(long seconds) throws Exception {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new AssertionError("the server did not exit within " + seconds + " s:\n" + Files.readString(log));
        }
        return process.exitValue();
    }

    /** What the server logged so far. */
    String log() throws IOException {
        return Files.readString(log);
    }

    private static ProcessBuilder builder(Path home, List<String> cmd, Path log) {
        ProcessBuilder b = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        b.environment().clear();
        b.environment().put("PATH", "/usr/bin:/bin");
        b.environment().put("HOME", home.toString());
        return b;
    }

    private static void run(Path home, List<String> cmd, Path log) throws Exception {
        Process p = builder(home, cmd, log).start();
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException(cmd + " failed:\n" + Files.readString(log));
        }
    }

    /** SIGTERM, then SIGKILL after 10 s; interrupted meanwhile, SIGKILL at once and the interrupt kept. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
