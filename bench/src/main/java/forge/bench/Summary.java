package forge.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads back {@code METRIC}/{@code RATIO} lines and checks them against ForgeLM's performance
 * targets (issue 3), as a Markdown table for {@code bench/RESULTS.md}. A target whose figure is
 * missing is reported as not measured, never as met.
 */
public final class Summary {

    /**
     * One target.
     *
     * @param what  in words
     * @param line  the line it reads: {@code RATIO name} or {@code METRIC name}
     * @param limit the bound
     * @param atMost whether the figure must be at most the bound (else at least)
     */
    public record Goal(String what, String line, double limit, boolean atMost) {
        /** The verdict on a figure. */
        public boolean met(double value) {
            return atMost ? value <= limit : value >= limit;
        }

        String bound() {
            return (atMost ? "≤ " : "≥ ") + Report.format(limit);
        }
    }

    /** The targets of issue 3, issue 16's returning-session, restart and start-up goals, and issue 30's mapped start. */
    public static final List<Goal> GOALS = List.of(
            new Goal("seed p95 latency vs llama-server", "RATIO seed.p95_ms", 0.95, true),
            new Goal("single-stream decode vs llama-bench tg", "RATIO decode_vs_llama_bench", 0.97, false),
            new Goal("4-client aggregate tokens/s vs llama-server", "RATIO conc4.agg_tps", 1.1, false),
            new Goal("shared-prefix TTFT p95 vs llama-server", "RATIO shared.ttft_p95_ms", 0.35, true),
            new Goal("returning-session TTFT p95 vs llama-server", "RATIO sessions.returning_ttft_p95_ms", 1.0, true),
            new Goal(
                    "first-turn TTFT p95 after a restart (disk cache) vs llama-server started fresh",
                    "RATIO restart.ttft_p95_ms",
                    0.2,
                    true),
            new Goal("startup to /health 200, minus llama-server's (ms)", "METRIC startup.diff_ms", 300, true),
            new Goal("RSS over model size, minus llama-server's (MiB)", "METRIC rss.diff_mb", 100, true),
            new Goal(
                    "~2 GB model (mapped): start to first token, minus llama-server's (ms)",
                    "METRIC mapped.first_token_diff_ms",
                    300,
                    true));

    private final Map<String, Double> values = new LinkedHashMap<>();

    /** Takes every {@code METRIC}/{@code RATIO} line among {@code lines}; the last value of a name wins. */
    public static Summary of(List<String> lines) {
        Summary s = new Summary();
        for (String line : lines) {
            parse(line).ifPresent(e -> s.values.put(e.getKey(), e.getValue()));
        }
        return s;
    }

    /** {@code "METRIC a.b=1.5"} to ({@code "METRIC a.b"}, 1.5); empty for any other line. */
    static Optional<Map.Entry<String, Double>> parse(String line) {
        String l = line.strip();
        if (!(l.startsWith("METRIC ") || l.startsWith("RATIO "))) {
            return Optional.empty();
        }
        int eq = l.lastIndexOf('=');
        if (eq < 0) {
            return Optional.empty();
        }
        try {
            return Optional.of(Map.entry(l.substring(0, eq), Double.parseDouble(l.substring(eq + 1))));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** The value of a line name such as {@code "RATIO seed.p95_ms"}. */
    public Optional<Double> value(String line) {
        return Optional.ofNullable(values.get(line));
    }

    /** The targets as a Markdown table. */
    public String table() {
        List<String> rows = new ArrayList<>();
        rows.add("| target | line | goal | measured | verdict |");
        rows.add("|---|---|---|---|---|");
        for (Goal g : GOALS) {
            Optional<Double> v = value(g.line());
            rows.add("| " + g.what() + " | `" + g.line() + "` | " + g.bound() + " | "
                    + v.map(Report::format).orElse("—") + " | "
                    + v.map(x -> g.met(x) ? "met" : "**missed**").orElse("not measured") + " |");
        }
        return String.join("\n", rows) + "\n";
    }
}
