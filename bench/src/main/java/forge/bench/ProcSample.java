package forge.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * What a running server holds, read from {@code /proc/PID}: resident memory ({@code status}'s
 * {@code VmRSS}), open file descriptors (the entries of {@code fd/}) and threads ({@code status}'s
 * {@code Threads}, platform threads only: virtual ones are not the kernel's).
 *
 * @param minute   minutes since the load began (0: before it)
 * @param requests requests finished by then
 * @param rssKb    VmRSS in KiB
 * @param fds      open file descriptors
 * @param threads  threads
 */
public record ProcSample(int minute, long requests, long rssKb, int fds, int threads) {

    /** Reads process {@code pid} now; a process that is gone reads as zeros. */
    public static ProcSample read(long pid, int minute, long requests) {
        Path proc = Path.of("/proc", Long.toString(pid));
        Path status = proc.resolve("status");
        int fds;
        try (Stream<Path> entries = Files.list(proc.resolve("fd"))) {
            fds = (int) entries.count();
        } catch (IOException | UncheckedIOException e) {
            fds = 0;
        }
        return new ProcSample(minute, requests, ProcessProbe.statusField(status, "VmRSS"), fds, (int)
                ProcessProbe.statusField(status, "Threads"));
    }

    /** One row of the soak's table. */
    String row() {
        return "%6d  %8d  %8.1f  %5d  %7d".formatted(minute, requests, rssKb / 1024.0, fds, threads);
    }

    /** The table's header, matching {@link #row()}. */
    static String header() {
        return "minute  requests   RSS MiB    fds  threads";
    }
}
