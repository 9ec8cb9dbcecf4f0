package forge.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.ToDoubleFunction;

/**
 * The load generator's entry point: runs one workload against one or two servers, interleaved,
 * and prints {@code METRIC}/{@code RATIO} lines on stdout and progress on stderr.
 *
 * <p>Workloads (each request fixes its work with {@code ignore_eos} and {@code max_tokens}):
 * <ul>
 *   <li>{@code seed}: the seed system's request, non-streamed, sequential: p50/p95/mean latency,
 *       completion tokens/s, successes.
 *   <li>{@code ttft}: the same request streamed, sequential: time to the first content delta,
 *       and single-stream decode tokens/s (with {@code --llama-bench}, as a fraction of llama-bench's tg).
 *   <li>{@code conc}: N streaming clients at once, per {@code --clients} value: aggregate tokens/s, TTFT p95.
 *   <li>{@code shared}: 4 streaming clients whose requests share a ~800-token system prompt, new each
 *       round (a session no server has seen): TTFT p95.
 *   <li>{@code sessions}: {@code --clients S} sessions, each with its own ~800-token system prompt,
 *       taking turns one request at a time ({@code --runs T} turns each, round robin), on fewer
 *       slots than sessions: TTFT p50/p95 of the returning turns (a session's prompt is then no
 *       longer in a slot, but a server may keep it elsewhere), and of the first turns.
 *   <li>{@code startup}, {@code rss}: start each server ({@code --cmd}), time to {@code /health}
 *       200 and resident memory then, minus the model file's size.
 *   <li>{@code mapped}: a large model's start: per launch of each server, process start to
 *       {@code /health} 200 and to the answer of a one-token completion sent then; and the memory of
 *       two processes serving the same file (each server {@code NAME} with a second, {@code NAME_b}):
 *       their RSS and PSS summed (PSS counts a page two processes share half in each, so once in the sum).
 *   <li>{@code llama-bench}: prints the figures of a llama-bench JSON file.
 *   <li>{@code summary FILE...}: the targets table of the METRIC/RATIO lines in the files.
 * </ul>
 * See {@link Options#USAGE} for the options.
 */
public final class LoadGenerator {

    private final Options options;
    private final Report report;

    LoadGenerator(Options options, Report report) {
        this.options = options;
        this.report = report;
    }

    public static void main(String[] args) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("LoadGenerator: " + e.getMessage());
            System.err.print(Options.USAGE);
            System.exit(2);
            return;
        }
        try {
            new LoadGenerator(options, new Report(System.out)).run();
        } catch (IOException | IllegalArgumentException | IllegalStateException e) {
            System.err.println("LoadGenerator " + options.workload() + ": " + e.getMessage());
            System.exit(1);
        } catch (InterruptedException e) {
            System.exit(130);
        }
    }

    void run() throws IOException, InterruptedException {
        switch (options.workload()) {
            case "summary" -> summary();
            case "llama-bench" -> llamaBench(readLlamaBench());
            case "startup", "rss" -> new ProcessWorkloads(options, report).launches(options.workload());
            case "mapped" -> new ProcessWorkloads(options, report).mapped();
            case "restart" -> new ProcessWorkloads(options, report).restart();
            case "seed", "ttft", "conc", "shared", "sessions", "sampler", "spec", "draft" -> {
                try (ChatClient client = new ChatClient(Duration.ofSeconds(options.timeoutSec()))) {
                    List<Target> targets = targets(client);
                    switch (options.workload()) {
                        case "seed" -> seed(client, targets);
                        // sampler, spec: ttft's streamed requests, one server with and without a stage or
                        // speculative decoding (--body)
                        case "ttft", "sampler", "spec", "draft" -> ttft(client, targets);
                        case "conc" -> conc(client, targets);
                        case "sessions" -> sessions(client, targets);
                        default -> shared(client, targets);
                    }
                }
            }
            default -> throw new IllegalArgumentException("unknown workload " + options.workload());
        }
    }

    private List<Target> targets(ChatClient client) throws IOException, InterruptedException {
        // spec, draft, sessions: two servers with a setting and two without it, all four interleaved
        // request by request, so that a change of the machine's load reaches each alike (run.sh's ratios).
        int most = List.of("spec", "draft", "sessions").contains(options.workload()) ? 4 : 2;
        if (options.servers().isEmpty() || options.servers().size() > most) {
            throw new IllegalArgumentException(
                    most == 2 ? "give one or two --server NAME=URL" : "give one to four --server NAME=URL");
        }
        List<Target> targets = new ArrayList<>();
        for (Map.Entry<String, String> s : options.servers().entrySet()) {
            Target t =
                    Target.of(client, s.getKey(), Target.requireLoopback(URI.create(s.getValue())), options.models());
            targets.add(t);
            System.err.println("bench: " + t.name() + " = " + t.base() + " model " + t.model());
        }
        return targets;
    }

    // ---- sequential workloads

    private void seed(ChatClient client, List<Target> targets) {
        String w = "seed";
        var results = Interleave.sequential(
                targets,
                options.warmup(),
                options.runs(),
                (t, step) -> client.complete(t, seedRequest(t, false)),
                (i, of, row) -> progress(w, i, of, targets, row, c -> c.latencyMs(), "ms"));
        for (int k = 0; k < targets.size(); k++) {
            String p = targets.get(k).name() + "." + w + ".";
            List<Completion> ok = okOnes(results.get(k));
            distribution(p, Stats.of(lat(ok)));
            report.metricOut(p + "completion_tps_mean", mean(ok, Completion::completionTps));
            report.metricOut(p + "server_decode_tps_mean", mean(ok, Completion::serverDecodeTps));
            report.metricOut(p + "success_count", ok.size());
            report.metricOut(p + "runs", results.get(k).size());
            checkTokens(targets.get(k), ok);
        }
        ratios(
                w,
                targets,
                results,
                percentiles("", LoadGenerator::lat),
                new Figure("mean_ms", cs -> Stats.of(lat(cs)).mean()),
                new Figure("completion_tps_mean", cs -> mean(cs, Completion::completionTps)));
    }

    /** The seed system's request to {@code t}, with the fields {@code --body} gives it. */
    private ObjectNode seedRequest(Target t, boolean stream) {
        return body(t, Prompts.chat(t.model(), Prompts.SEED_SYSTEM, Prompts.SEED_USER, options.maxTokens(), stream));
    }

    /** The p50, p95 and mean of {@code ms}, as {@code <p>p50_ms} and so on. */
    private void distribution(String p, Stats ms) {
        report.metricOut(p + "p50_ms", ms.p50());
        report.metricOut(p + "p95_ms", ms.p95());
        report.metricOut(p + "mean_ms", ms.mean());
    }

    private void ttft(ChatClient client, List<Target> targets) throws IOException {
        String w = options.workload();
        var results = Interleave.sequential(
                targets,
                options.warmup(),
                options.runs(),
                (t, step) -> client.stream(t, seedRequest(t, true)),
                (i, of, row) -> progress(w, i, of, targets, row, Completion::ttftMs, "ms to first token"));
        LlamaBench limit = options.llamaBench().isPresent() ? readLlamaBench() : null;
        if (limit != null) {
            llamaBench(limit);
        }
        for (int k = 0; k < targets.size(); k++) {
            String p = targets.get(k).name() + "." + w + ".";
            List<Completion> ok = okOnes(results.get(k));
            distribution(p, Stats.of(ok.stream().map(Completion::ttftMs).toList()));
            double decode = mean(ok, Completion::decodeTps);
            report.metricOut(p + "decode_tps_mean", decode);
            // What the server measured itself: the engine without the client's side of streaming.
            double server = mean(ok, Completion::serverDecodeTps);
            report.metricOut(p + "server_decode_tps_mean", server);
            report.metricOut(p + "prompt_tokens", mean(ok, c -> c.promptTokens()));
            report.metricOut(p + "success_count", ok.size());
            if (limit != null) {
                report.metricOut(targets.get(k).name() + ".decode_vs_llama_bench", decode / limit.tgTps());
                report.metricOut(targets.get(k).name() + ".server_decode_vs_llama_bench", server / limit.tgTps());
                if (k == 0) {
                    report.ratioOut("decode_vs_llama_bench", decode, limit.tgTps());
                }
            }
            checkTokens(targets.get(k), ok);
        }
        ratios(
                w,
                targets,
                results,
                percentiles("", LoadGenerator::ttfts),
                new Figure("decode_tps_mean", cs -> mean(cs, Completion::decodeTps)));
    }

    private void sessions(ChatClient client, List<Target> targets) {
        String w = "sessions";
        int sessions = options.clients().getFirst();
        // Step i is session i % S's turn i / S: every session returns after all the others had a
        // turn, so with more sessions than slots its prompt has left the slots by then.
        var results = Interleave.sequential(
                targets,
                0,
                sessions * options.runs(),
                (t, step) -> client.stream(
                        t,
                        Prompts.chat(
                                t.model(),
                                Prompts.sessionSystem(step % sessions),
                                Prompts.userMessage(step / sessions, step % sessions),
                                options.maxTokens(),
                                true)),
                (i, of, row) -> progress(w, i, of, targets, row, Completion::ttftMs, "ms to first token"));
        List<List<Completion>> returning = new ArrayList<>();
        for (int k = 0; k < targets.size(); k++) {
            String p = targets.get(k).name() + "." + w + ".";
            List<Completion> first = okOnes(
                    results.get(k).subList(0, Math.min(sessions, results.get(k).size())));
            List<Completion> back = results.get(k).size() > sessions
                    ? results.get(k).subList(sessions, results.get(k).size())
                    : List.of();
            returning.add(back);
            Stats again = Stats.of(ttfts(okOnes(back)));
            report.metricOut(p + "returning_ttft_p50_ms", again.p50());
            report.metricOut(p + "returning_ttft_p95_ms", again.p95());
            report.metricOut(p + "first_ttft_p50_ms", Stats.of(ttfts(first)).p50());
            report.metricOut(p + "prompt_tokens", mean(okOnes(results.get(k)), c -> c.promptTokens()));
            report.metricOut(p + "success_count", okOnes(results.get(k)).size());
            report.metricOut(p + "requests", results.get(k).size());
            checkTokens(targets.get(k), okOnes(results.get(k)));
        }
        ratios(w, targets, returning, percentiles("returning_ttft_", LoadGenerator::ttfts));
    }

    // ---- concurrent workloads

    private void conc(ChatClient client, List<Target> targets) {
        for (int clients : options.clients()) {
            concurrent(client, targets, "conc" + clients, clients, round -> Prompts.SEED_SYSTEM);
        }
    }

    private void shared(ChatClient client, List<Target> targets) {
        // Each round is a new session: its system prompt is new to both servers and shared by the
        // round's clients, so what is measured is computing one shared prefix for concurrent
        // requests, not re-reading a prefix every slot already holds from earlier rounds.
        concurrent(client, targets, "shared", options.clients().getFirst(), Prompts::sharedSystem);
    }

    /**
     * Workload {@code w}: rounds of {@code clients} streaming requests at once, each round's with
     * the system prompt {@code system} gives it.
     */
    private void concurrent(
            ChatClient client, List<Target> targets, String w, int clients, IntFunction<String> system) {
        var rounds = Interleave.rounds(
                targets,
                options.warmup(),
                options.runs(),
                clients,
                (t, round, c) -> client.stream(
                        t,
                        Prompts.chat(
                                t.model(),
                                system.apply(round),
                                Prompts.userMessage(round, c),
                                options.maxTokens(),
                                true)),
                (i, of, row) -> roundProgress(w, i, of, targets, row));
        concurrentMetrics(w, targets, rounds);
    }

    private void concurrentMetrics(String w, List<Target> targets, List<List<Interleave.Round>> rounds) {
        List<List<Completion>> requests = new ArrayList<>();
        for (int k = 0; k < targets.size(); k++) {
            String p = targets.get(k).name() + "." + w + ".";
            List<Completion> all =
                    rounds.get(k).stream().flatMap(r -> r.requests().stream()).toList();
            requests.add(all);
            List<Completion> ok = okOnes(all);
            Stats ttft = Stats.of(ttfts(ok));
            report.metricOut(p + "agg_tps", aggregateTps(rounds.get(k)));
            report.metricOut(p + "ttft_p50_ms", ttft.p50());
            report.metricOut(p + "ttft_p95_ms", ttft.p95());
            report.metricOut(p + "latency_p95_ms", Stats.of(lat(ok)).p95());
            report.metricOut(p + "prompt_tokens", mean(ok, c -> c.promptTokens()));
            report.metricOut(p + "success_count", ok.size());
            report.metricOut(p + "requests", all.size());
            checkTokens(targets.get(k), ok);
        }
        if (targets.size() == 2) {
            report.ratioOut(w + ".agg_tps", aggregateTps(rounds.get(0)), aggregateTps(rounds.get(1)));
        }
        ratios(w, targets, requests, percentiles("ttft_", LoadGenerator::ttfts));
    }

    /** Completion tokens of all measured rounds over their summed wall time. */
    static double aggregateTps(List<Interleave.Round> rounds) {
        double ms = rounds.stream().mapToDouble(Interleave.Round::wallMs).sum();
        long tokens = rounds.stream()
                .flatMap(r -> r.requests().stream())
                .filter(Completion::ok)
                .mapToLong(Completion::completionTokens)
                .sum();
        return ms > 0 ? tokens / (ms / 1000.0) : Double.NaN;
    }

    // ---- files

    private LlamaBench readLlamaBench() throws IOException {
        Path file = options.llamaBench().orElseThrow(() -> new IllegalArgumentException("--llama-bench FILE needed"));
        return LlamaBench.parse(Files.readString(file));
    }

    private void llamaBench(LlamaBench b) {
        report.metricOut("llama_bench.pp" + b.ppTokens() + "_tps", b.ppTps());
        report.metricOut("llama_bench.tg" + b.tgTokens() + "_tps", b.tgTps());
        report.metricOut("llama_bench.threads", b.threads());
    }

    private void summary() throws IOException {
        List<String> lines = new ArrayList<>();
        for (Path f : options.files()) {
            lines.addAll(Files.readAllLines(f));
        }
        System.out.print(Summary.of(lines).table());
    }

    // ---- helpers

    /** A figure computed from one server's successful requests, for a ratio. */
    private record Figure(String name, ToDoubleFunction<List<Completion>> of) {}

    /** The p50 and p95 of the times {@code ms} picks from the requests, as {@code <name>p50_ms} and {@code <name>p95_ms}. */
    private static List<Figure> percentiles(String name, Function<List<Completion>, List<Double>> ms) {
        return List.of(
                new Figure(name + "p50_ms", cs -> Stats.of(ms.apply(cs)).p50()),
                new Figure(name + "p95_ms", cs -> Stats.of(ms.apply(cs)).p95()));
    }

    /** With two servers, the ratio of each figure of the first's to the second's: the percentiles first, then {@code more}. */
    private void ratios(
            String w, List<Target> targets, List<List<Completion>> results, List<Figure> percentiles, Figure... more) {
        if (targets.size() != 2) {
            return;
        }
        List<Completion> a = okOnes(results.get(0));
        List<Completion> b = okOnes(results.get(1));
        List<Figure> figures = new ArrayList<>(percentiles);
        figures.addAll(List.of(more));
        for (Figure f : figures) {
            report.ratioOut(w + "." + f.name(), f.of().applyAsDouble(a), f.of().applyAsDouble(b));
        }
    }

    /** {@code body} with the fields {@code --body} gives {@code target}'s requests. */
    private ObjectNode body(Target target, ObjectNode body) {
        String extra = options.bodies().get(target.name());
        if (extra == null) {
            return body;
        }
        try {
            var fields = new ObjectMapper().readTree(extra);
            if (!fields.isObject()) {
                throw new IllegalArgumentException("--body " + target.name() + " is not a JSON object: " + extra);
            }
            body.setAll((ObjectNode) fields);
            return body;
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("--body " + target.name() + " is not JSON: " + e.getOriginalMessage());
        }
    }

    static List<Completion> okOnes(List<Completion> cs) {
        return cs.stream().filter(Completion::ok).toList();
    }

    private static List<Double> lat(List<Completion> cs) {
        return cs.stream().filter(Completion::ok).map(Completion::latencyMs).toList();
    }

    static List<Double> ttfts(List<Completion> cs) {
        return cs.stream()
                .filter(Completion::ok)
                .map(Completion::ttftMs)
                .filter(Double::isFinite)
                .toList();
    }

    static double mean(List<Completion> cs, ToDoubleFunction<Completion> f) {
        return cs.stream().mapToDouble(f).filter(Double::isFinite).average().orElse(Double.NaN);
    }

    /** Warns when a server generated another number of tokens than asked: the work would differ. */
    private void checkTokens(Target t, List<Completion> ok) {
        long off = ok.stream()
                .filter(c -> c.completionTokens() != options.maxTokens())
                .count();
        if (off > 0) {
            System.err.printf(
                    Locale.ROOT,
                    "bench: WARNING %s: %d of %d requests did not generate %d tokens%n",
                    t.name(),
                    off,
                    ok.size(),
                    options.maxTokens());
        }
        long noUsage = ok.stream().filter(c -> !c.usageReported()).count();
        if (noUsage > 0) {
            System.err.printf(
                    Locale.ROOT, "bench: WARNING %s: %d requests without usage; counted chunks%n", t.name(), noUsage);
        }
    }

    private static void progress(
            String w,
            int i,
            int of,
            List<Target> targets,
            List<Completion> row,
            ToDoubleFunction<Completion> figure,
            String unit) {
        StringBuilder sb = new StringBuilder(
                String.format(Locale.ROOT, "%s %s/%d", w, i < 0 ? "warmup" : Integer.toString(i + 1), of));
        for (int k = 0; k < row.size(); k++) {
            Completion c = row.get(k);
            sb.append("  ").append(targets.get(k).name()).append(' ');
            sb.append(
                    c.ok()
                            ? String.format(
                                    Locale.ROOT,
                                    "%.1f %s (%d tok)",
                                    figure.applyAsDouble(c),
                                    unit,
                                    c.completionTokens())
                            : "FAILED: " + c.error());
        }
        System.err.println(sb);
    }

    private static void roundProgress(String w, int i, int of, List<Target> targets, List<Interleave.Round> row) {
        StringBuilder sb = new StringBuilder(
                String.format(Locale.ROOT, "%s round %s/%d", w, i < 0 ? "warmup" : Integer.toString(i + 1), of));
        for (int k = 0; k < row.size(); k++) {
            Interleave.Round r = row.get(k);
            long failed = r.requests().stream().filter(c -> !c.ok()).count();
            sb.append(String.format(
                    Locale.ROOT,
                    "  %s %.1f tok/s, TTFT max %.1f ms",
                    targets.get(k).name(),
                    r.aggregateTps(),
                    r.requests().stream()
                            .mapToDouble(Completion::ttftMs)
                            .filter(Double::isFinite)
                            .max()
                            .orElse(Double.NaN)));
            if (failed > 0) {
                sb.append(" (")
                        .append(failed)
                        .append(" FAILED: ")
                        .append(r.requests().stream()
                                .filter(c -> !c.ok())
                                .findFirst()
                                .orElseThrow()
                                .error())
                        .append(')');
            }
        }
        System.err.println(sb);
    }
}
