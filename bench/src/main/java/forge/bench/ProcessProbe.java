package forge.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Starts a server process and measures it from the outside: the time from starting the process
 * to the first {@code GET /health} that answers 200 (both servers answer 503 or nothing until
 * the model is loaded), and its resident memory right then.
 */
public final class ProcessProbe {

    private static final long POLL_NANOS = Duration.ofMillis(5).toNanos();

    /**
     * One start of a server.
     *
     * @param readyMs process start to the first 200 from {@code /health}
     * @param rssKb   VmRSS of the process and its descendants (a wrapper script's child counts too), in KiB
     */
    public record Launch(double readyMs, long rssKb) {}

    private ProcessProbe() {}

    /**
     * A started server, ready: stop it with {@link #close()} (SIGTERM, then SIGKILL after 20 s).
     *
     * @param launch  its time to ready and memory then
     */
    public record Running(Process process, Launch launch) implements AutoCloseable {
        /** Stops it; interrupted meanwhile, it kills the process at once and keeps the interrupt. */
        @Override
        public void close() {
            try {
                stop(process);
            } catch (InterruptedException e) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Starts {@code command}, waits for {@code /health} on {@code base}, reads the memory, then
     * stops the process (and its descendants) and waits for it to exit.
     *
     * @param log where the process's output goes
     * @throws IOException when the port already answers, the process exits or is not ready in time
     */
    public static Launch launch(ChatClient client, List<String> command, URI base, Path log, Duration timeout)
            throws IOException, InterruptedException {
        try (Running running = start(client, command, base, log, timeout)) {
            return running.launch();
        }
    }

    /**
     * Starts {@code command} and waits for {@code /health} on {@code base}; the caller stops it.
     *
     * @throws IOException when the port already answers, the process exits or is not ready in time (it is stopped then)
     */
    public static Running start(ChatClient client, List<String> command, URI base, Path log, Duration timeout)
            throws IOException, InterruptedException {
        if (client.health(base) != 0) {
            throw new IOException("something already answers on " + base + ": stop it first");
        }
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        long start = System.nanoTime();
        Process process = pb.start();
        boolean ready = false;
        try {
            long deadline = start + timeout.toNanos();
            while (true) {
                int status = client.health(base);
                long now = System.nanoTime();
                if (status == 200) {
                    ready = true;
                    return new Running(process, new Launch(ChatStream.ms(now - start), rssKb(process.toHandle())));
                }
                if (!process.isAlive()) {
                    throw new IOException(command.getFirst() + " exited with " + process.exitValue()
                            + " before it was ready; see " + log);
                }
                if (now > deadline) {
                    throw new IOException(command.getFirst() + " not ready within " + timeout + "; see " + log);
                }
                long wait = POLL_NANOS - (System.nanoTime() - now);
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
            }
        } finally {
            if (!ready) {
                stop(process);
            }
        }
    }

    /** VmRSS of a process and all its descendants, in KiB (0 for those already gone). */
    public static long rssKb(ProcessHandle process) {
        return Stream.concat(Stream.of(process), process.descendants())
                .mapToLong(p -> vmRssKb(Path.of("/proc", Long.toString(p.pid()), "status")))
                .sum();
    }

    /**
     * PSS of a process and all its descendants, in KiB: resident pages, each divided by the number of
     * processes mapping it ({@code Pss:} of {@code /proc/PID/smaps_rollup}), so that pages several
     * processes share count once over all of them.
     */
    public static long pssKb(ProcessHandle process) {
        return Stream.concat(Stream.of(process), process.descendants())
                .mapToLong(p -> statusField(Path.of("/proc", Long.toString(p.pid()), "smaps_rollup"), "Pss"))
                .sum();
    }

    /** The {@code VmRSS:} line of a {@code /proc/PID/status} file, in KiB; 0 when absent. */
    static long vmRssKb(Path status) {
        return statusField(status, "VmRSS");
    }

    /**
     * The number on the {@code FIELD:} line of a {@code /proc/PID/status} file ({@code VmRSS} in
     * KiB, {@code Threads} a count), or of {@code smaps_rollup} ({@code Pss}); 0 when the file or the line is absent.
     */
    static long statusField(Path status, String field) {
        try (Stream<String> lines = Files.lines(status)) {
            return lines.filter(l -> l.startsWith(field + ":"))
                    .findFirst()
                    .map(ProcessProbe::parseKb)
                    .orElse(0L);
        } catch (IOException | UncheckedIOException e) {
            return 0;
        }
    }

    /** {@code "VmRSS:\t  123456 kB"} to 123456, {@code "Threads:\t12"} to 12. */
    static long parseKb(String line) {
        String[] parts = line.substring(line.indexOf(':') + 1).trim().split("\\s+");
        long value = Long.parseLong(parts[0]);
        if (parts.length > 1 && !parts[1].equalsIgnoreCase("kB")) {
            throw new IllegalArgumentException("unexpected unit in " + line);
        }
        return value;
    }

    private static void stop(Process process) throws InterruptedException {
        List<ProcessHandle> children = process.descendants().toList();
        process.destroy();
        children.forEach(ProcessHandle::destroy);
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            children.forEach(ProcessHandle::destroyForcibly);
            process.waitFor(10, TimeUnit.SECONDS);
        }
        for (ProcessHandle child : children) {
            try {
                child.onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                child.destroyForcibly();
            }
        }
    }
}
