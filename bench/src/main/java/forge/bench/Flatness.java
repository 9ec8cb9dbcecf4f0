package forge.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * Whether a soak's samples are flat. The first minute is warm-up (classes load, the JIT compiles,
 * pools fill), so the sample at minute 1 is the baseline and the last sample is compared with it:
 *
 * <ul>
 *   <li>resident memory grows by at most {@value #RSS_GROWTH_PERCENT}%;
 *   <li>open file descriptors grow by at most one per client plus {@value #FD_SLACK} (each client
 *       may hold a kept-alive connection, or have just dropped one, at either sample);
 *   <li>threads grow by at most {@value #THREAD_SLACK} (request handling runs on virtual threads,
 *       which are not the kernel's; the platform threads are a fixed set and a few pool workers).
 * </ul>
 * A leak of one buffer, file or thread per request would break these within minutes: a soak
 * sends hundreds of requests a minute.
 */
public final class Flatness {

    static final int RSS_GROWTH_PERCENT = 5;
    static final int FD_SLACK = 8;
    static final int THREAD_SLACK = 8;

    private Flatness() {}

    /** What is not flat in {@code samples} (ordered by minute) under {@code clients} clients; empty when all is. */
    public static List<String> problems(List<ProcSample> samples, int clients) {
        List<String> problems = new ArrayList<>();
        ProcSample base =
                samples.stream().filter(s -> s.minute() >= 1).findFirst().orElse(null);
        ProcSample last = samples.isEmpty() ? null : samples.getLast();
        if (base == null || last == base) {
            problems.add("too short: flatness needs samples after minute 1");
            return problems;
        }
        if (last.rssKb() * 100 > base.rssKb() * (100L + RSS_GROWTH_PERCENT)) {
            problems.add("RSS grew from %.1f MiB at minute %d to %.1f MiB at minute %d (more than %d%%)"
                    .formatted(
                            base.rssKb() / 1024.0,
                            base.minute(),
                            last.rssKb() / 1024.0,
                            last.minute(),
                            RSS_GROWTH_PERCENT));
        }
        if (last.fds() > base.fds() + clients + FD_SLACK) {
            problems.add("open files grew from %d at minute %d to %d at minute %d (more than %d)"
                    .formatted(base.fds(), base.minute(), last.fds(), last.minute(), clients + FD_SLACK));
        }
        if (last.threads() > base.threads() + THREAD_SLACK) {
            problems.add("threads grew from %d at minute %d to %d at minute %d (more than %d)"
                    .formatted(base.threads(), base.minute(), last.threads(), last.minute(), THREAD_SLACK));
        }
        return problems;
    }
}
