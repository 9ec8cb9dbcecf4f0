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
            case "startup", "rss" -> launches(options.workload());
            case "mapped" -> mapped();
            case "restart" -> restart();
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
        if (options.servers().isEmpty() || options.servers().size() > 2) {
            throw new IllegalArgumentException("give one or two --server NAME=URL");
        }
        List<Target> targets = new ArrayList<>();
        for (Map.Entry<String, String> s : options.servers().entrySet()) {
            Target t = target(client, s.getKey(), Target.requireLoopback(URI.create(s.getValue())));
            targets.add(t);
            System.err.println("bench: " + t.name() + " = " + t.base() + " model " + t.model());
        }
        return targets;
    }

    /** Server {@code name} at {@code base}, with its {@code --model}, else the first of its {@code /v1/models}. */
    private Target target(ChatClient client, String name, URI base) throws IOException, InterruptedException {
        String model = options.models().get(name);
        return new Target(name, base, model != null ? model : client.firstModelId(base));
    }

    // ---- sequential workloads

    private void seed(ChatClient client, List<Target> targets) {
        String w = "seed";
        var results = Interleave.sequential(
                targets,
                options.warmup(),
                options.runs(),
                (t, step) -> client.complete(
                        t,
                        body(
                                t,
                                Prompts.chat(
                                        t.model(),
                                        Prompts.SEED_SYSTEM,
                                        Prompts.SEED_USER,
                                        options.maxTokens(),
                                        false))),
                (i, of, row) -> progress(w, i, of, targets, row, c -> c.latencyMs(), "ms"));
        for (int k = 0; k < targets.size(); k++) {
            String p = targets.get(k).name() + "." + w + ".";
            List<Completion> ok = okOnes(results.get(k));
            Stats lat = Stats.of(ok.stream().map(Completion::latencyMs).toList());
            report.metricOut(p + "p50_ms", lat.p50());
            report.metricOut(p + "p95_ms", lat.p95());
            report.metricOut(p + "mean_ms", lat.mean());
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
                List.of(
                        new Figure("p50_ms", cs -> Stats.of(lat(cs)).p50()),
                        new Figure("p95_ms", cs -> Stats.of(lat(cs)).p95()),
                        new Figure("mean_ms", cs -> Stats.of(lat(cs)).mean()),
                        new Figure("completion_tps_mean", cs -> mean(cs, Completion::completionTps))));
    }

    private void ttft(ChatClient client, List<Target> targets) throws IOException {
        String w = options.workload();
        var results = Interleave.sequential(
                targets,
                options.warmup(),
                options.runs(),
                (t, step) -> client.stream(
                        t,
                        body(
                                t,
                                Prompts.chat(
                                        t.model(), Prompts.SEED_SYSTEM, Prompts.SEED_USER, options.maxTokens(), true))),
                (i, of, row) -> progress(w, i, of, targets, row, Completion::ttftMs, "ms to first token"));
        LlamaBench limit = options.llamaBench().isPresent() ? readLlamaBench() : null;
        if (limit != null) {
            llamaBench(limit);
        }
        for (int k = 0; k < targets.size(); k++) {
            String p = targets.get(k).name() + "." + w + ".";
            List<Completion> ok = okOnes(results.get(k));
            Stats ttft = Stats.of(ok.stream().map(Completion::ttftMs).toList());
            report.metricOut(p + "p50_ms", ttft.p50());
            report.metricOut(p + "p95_ms", ttft.p95());
            report.metricOut(p + "mean_ms", ttft.mean());
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
                List.of(
                        new Figure("p50_ms", cs -> Stats.of(ttfts(cs)).p50()),
                        new Figure("p95_ms", cs -> Stats.of(ttfts(cs)).p95()),
                        new Figure("decode_tps_mean", cs -> mean(cs, Completion::decodeTps))));
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
        ratios(
                w,
                targets,
                returning,
                List.of(
                        new Figure(
                                "returning_ttft_p50_ms",
                                cs -> Stats.of(ttfts(cs)).p50()),
                        new Figure(
                                "returning_ttft_p95_ms",
                                cs -> Stats.of(ttfts(cs)).p95())));
    }

    // ---- concurrent workloads

    private void conc(ChatClient client, List<Target> targets) {
        for (int clients : options.clients()) {
            String w = "conc" + clients;
            var rounds = Interleave.rounds(
                    targets,
                    options.warmup(),
                    options.runs(),
                    clients,
                    (t, round, c) -> client.stream(
                            t,
                            Prompts.chat(
                                    t.model(),
                                    Prompts.SEED_SYSTEM,
                                    Prompts.userMessage(round, c),
                                    options.maxTokens(),
                                    true)),
                    (i, of, row) -> roundProgress(w, i, of, targets, row));
            concurrentMetrics(w, targets, rounds);
        }
    }

    private void shared(ChatClient client, List<Target> targets) {
        String w = "shared";
        int clients = options.clients().getFirst();
        // Each round is a new session: its system prompt is new to both servers and shared by the
        // round's clients, so what is measured is computing one shared prefix for concurrent
        // requests, not re-reading a prefix every slot already holds from earlier rounds.
        var rounds = Interleave.rounds(
                targets,
                options.warmup(),
                options.runs(),
                clients,
                (t, round, c) -> client.stream(
                        t,
                        Prompts.chat(
                                t.model(),
                                Prompts.sharedSystem(round),
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
        ratios(
                w,
                targets,
                requests,
                List.of(
                        new Figure("ttft_p50_ms", cs -> Stats.of(ttfts(cs)).p50()),
                        new Figure("ttft_p95_ms", cs -> Stats.of(ttfts(cs)).p95())));
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

    // ---- process workloads

    private void launches(String w) throws IOException, InterruptedException {
        if (options.servers().isEmpty()
                || !options.commands().keySet().equals(options.servers().keySet())) {
            throw new IllegalArgumentException(w + " needs --server NAME=URL and --cmd NAME=COMMAND for each server");
        }
        long modelBytes =
                options.modelFile().isPresent() ? Files.size(options.modelFile().get()) : 0;
        List<String> names = List.copyOf(options.servers().keySet());
        List<List<ProcessProbe.Launch>> results = new ArrayList<>();
        names.forEach(n -> results.add(new ArrayList<>()));
        Files.createDirectories(options.logDir());
        try (ChatClient client = new ChatClient(Duration.ofSeconds(10))) {
            for (int i = 0; i < options.warmup() + options.runs(); i++) {
                for (int k : Interleave.order(i, names.size())) {
                    String name = names.get(k);
                    URI base =
                            Target.requireLoopback(URI.create(options.servers().get(name)));
                    List<String> cmd =
                            List.of(options.commands().get(name).strip().split("\\s+"));
                    Path log = options.logDir().resolve(w + "-" + name + ".log");
                    var launch = ProcessProbe.launch(client, cmd, base, log, Duration.ofSeconds(options.timeoutSec()));
                    System.err.printf(
                            Locale.ROOT,
                            "%s %d/%d %s ready in %.1f ms, RSS %.1f MiB%n",
                            w,
                            i - options.warmup() + 1,
                            options.runs(),
                            name,
                            launch.readyMs(),
                            launch.rssKb() / 1024.0);
                    if (i >= options.warmup()) {
                        results.get(k).add(launch);
                    }
                }
            }
        }
        double[] ready = new double[names.size()];
        double[] overhead = new double[names.size()];
        for (int k = 0; k < names.size(); k++) {
            String p = names.get(k) + "." + w + ".";
            Stats r = Stats.of(
                    results.get(k).stream().map(ProcessProbe.Launch::readyMs).toList());
            Stats rss = Stats.of(
                    results.get(k).stream().map(l -> l.rssKb() / 1024.0).toList());
            ready[k] = r.p50();
            overhead[k] = rss.p50() - modelBytes / (1024.0 * 1024.0);
            report.metricOut(p + "ready_p50_ms", r.p50());
            report.metricOut(p + "ready_min_ms", r.min());
            report.metricOut(p + "rss_mb", rss.p50());
            report.metricOut(p + "overhead_mb", overhead[k]);
        }
        if (names.size() == 2) {
            report.metricOut(w + ".diff_ms", ready[0] - ready[1]);
            report.metricOut(w + ".diff_mb", overhead[0] - overhead[1]);
            report.ratioOut(w + ".ready_p50_ms", ready[0], ready[1]);
            report.ratioOut(w + ".overhead_mb", overhead[0], overhead[1]);
        }
    }

    /**
     * The {@code mapped} workload: the servers not named {@code *_b} are launched in turn
     * (interleaved, {@code --runs} each; ratios are the first's over the second's): the time to {@code /health} 200 and to the answer of a
     * one-token completion sent at once; then each with its {@code _b} beside it, both answered
     * once (the weights' pages touched), for the pair's RSS and PSS.
     */
    private void mapped() throws IOException, InterruptedException {
        String w = "mapped";
        if (options.servers().isEmpty()
                || !options.commands().keySet().equals(options.servers().keySet())) {
            throw new IllegalArgumentException(w + " needs --server NAME=URL and --cmd NAME=COMMAND for each server");
        }
        List<String> names = options.servers().keySet().stream()
                .filter(n -> !n.endsWith("_b"))
                .toList();
        List<List<Double>> ready = new ArrayList<>();
        List<List<Double>> first = new ArrayList<>();
        names.forEach(n -> {
            ready.add(new ArrayList<>());
            first.add(new ArrayList<>());
        });
        Files.createDirectories(options.logDir());
        Duration timeout = Duration.ofSeconds(options.timeoutSec());
        double[] pairRss = new double[names.size()];
        double[] pairPss = new double[names.size()];
        try (ChatClient client = new ChatClient(timeout)) {
            for (int i = 0; i < options.warmup() + options.runs(); i++) {
                for (int k : Interleave.order(i, names.size())) {
                    String name = names.get(k);
                    try (var running = start(client, w, name, timeout)) {
                        long readyAt = System.nanoTime();
                        Completion c = oneToken(client, name);
                        double firstMs = running.launch().readyMs() + ChatStream.ms(System.nanoTime() - readyAt);
                        if (!c.ok()) {
                            throw new IOException(name + ": the one-token completion failed: " + c.error());
                        }
                        System.err.printf(
                                Locale.ROOT,
                                "%s %d/%d %s ready in %.1f ms, first token in %.1f ms%n",
                                w,
                                i - options.warmup() + 1,
                                options.runs(),
                                name,
                                running.launch().readyMs(),
                                firstMs);
                        if (i >= options.warmup()) {
                            ready.get(k).add(running.launch().readyMs());
                            first.get(k).add(firstMs);
                        }
                    }
                }
            }
            for (int k = 0; k < names.size(); k++) {
                String a = names.get(k);
                String b = a + "_b";
                if (!options.servers().containsKey(b)) {
                    pairRss[k] = pairPss[k] = Double.NaN;
                    continue;
                }
                try (var one = start(client, w, a, timeout);
                        var two = start(client, w, b, timeout)) {
                    for (String n : List.of(a, b)) {
                        Completion c = oneToken(client, n);
                        if (!c.ok()) {
                            throw new IOException(n + ": the one-token completion failed: " + c.error());
                        }
                    }
                    ProcessHandle p1 = one.process().toHandle();
                    ProcessHandle p2 = two.process().toHandle();
                    pairRss[k] = (ProcessProbe.rssKb(p1) + ProcessProbe.rssKb(p2)) / 1024.0;
                    pairPss[k] = (ProcessProbe.pssKb(p1) + ProcessProbe.pssKb(p2)) / 1024.0;
                    System.err.printf(
                            Locale.ROOT,
                            "%s: two %s processes on one file: RSS %.1f MiB, PSS %.1f MiB together%n",
                            w,
                            a,
                            pairRss[k],
                            pairPss[k]);
                }
            }
        }
        double[] firstP50 = new double[names.size()];
        for (int k = 0; k < names.size(); k++) {
            String p = names.get(k) + "." + w + ".";
            Stats r = Stats.of(ready.get(k));
            Stats f = Stats.of(first.get(k));
            firstP50[k] = f.p50();
            report.metricOut(p + "ready_p50_ms", r.p50());
            report.metricOut(p + "first_token_p50_ms", f.p50());
            report.metricOut(p + "first_token_min_ms", f.min());
            if (!Double.isNaN(pairPss[k])) {
                report.metricOut(p + "pair_rss_mb", pairRss[k]);
                report.metricOut(p + "pair_pss_mb", pairPss[k]);
            }
        }
        // The ratios are the first server's over the second's (ForgeLM's over llama-server's); a third
        // (ForgeLM with --no-mmap, say) is reported beside them.
        if (names.size() >= 2) {
            report.metricOut(w + ".first_token_diff_ms", firstP50[0] - firstP50[1]);
            report.ratioOut(w + ".first_token_p50_ms", firstP50[0], firstP50[1]);
            if (!Double.isNaN(pairPss[0]) && !Double.isNaN(pairPss[1])) {
                report.ratioOut(w + ".pair_pss_mb", pairPss[0], pairPss[1]);
            }
        }
    }

    private ProcessProbe.Running start(ChatClient client, String w, String name, Duration timeout)
            throws IOException, InterruptedException {
        URI base = Target.requireLoopback(URI.create(options.servers().get(name)));
        List<String> cmd = List.of(options.commands().get(name).strip().split("\\s+"));
        return ProcessProbe.start(client, cmd, base, options.logDir().resolve(w + "-" + name + ".log"), timeout);
    }

    /** A one-token, non-streamed completion: done once the first token is generated. */
    private Completion oneToken(ChatClient client, String name) throws IOException, InterruptedException {
        URI base = Target.requireLoopback(URI.create(options.servers().get(name)));
        String model = options.models().get(name);
        Target t = new Target(name, base, model != null ? model : client.firstModelId(base));
        return client.complete(t, Prompts.chat(t.model(), Prompts.SEED_SYSTEM, "Hi", 1, false));
    }

    /**
     * The restart case: each round, per server (interleaved), a start, every session's first turn
     * (its own long system prompt), a stop (SIGTERM), a second start, and every session's next turn,
     * whose time to first token is measured. ForgeLM restarts with its disk prompt cache
     * ({@code --prompt-cache-dir}, the {@code --scratch} folder, emptied before each round);
     * llama-server starts fresh, as it keeps its prompt cache in memory only.
     */
    private void restart() throws IOException, InterruptedException {
        String w = "restart";
        if (options.servers().isEmpty()
                || !options.commands().keySet().equals(options.servers().keySet())) {
            throw new IllegalArgumentException(w + " needs --server NAME=URL and --cmd NAME=COMMAND for each server");
        }
        int sessions = options.clients().getFirst();
        List<String> names = List.copyOf(options.servers().keySet());
        List<List<Completion>> turns = new ArrayList<>();
        List<List<Double>> ready = new ArrayList<>();
        names.forEach(n -> {
            turns.add(new ArrayList<>());
            ready.add(new ArrayList<>());
        });
        Files.createDirectories(options.logDir());
        Duration timeout = Duration.ofSeconds(options.timeoutSec());
        try (ChatClient client = new ChatClient(timeout)) {
            for (int i = 0; i < options.runs(); i++) {
                for (int k : Interleave.order(i, names.size())) {
                    String name = names.get(k);
                    URI base =
                            Target.requireLoopback(URI.create(options.servers().get(name)));
                    List<String> cmd =
                            List.of(options.commands().get(name).strip().split("\\s+"));
                    Path log = options.logDir().resolve(w + "-" + name + ".log");
                    if (options.scratch().isPresent()) {
                        emptyFolder(options.scratch().get());
                    }
                    try (var _ = ProcessProbe.start(client, cmd, base, log, timeout)) {
                        Target t = target(client, name, base);
                        for (int s = 0; s < sessions; s++) {
                            client.stream(
                                    t,
                                    Prompts.chat(
                                            t.model(),
                                            Prompts.sessionSystem(s),
                                            Prompts.userMessage(0, s),
                                            options.maxTokens(),
                                            true));
                        }
                    }
                    try (var second = ProcessProbe.start(client, cmd, base, log, timeout)) {
                        ready.get(k).add(second.launch().readyMs());
                        Target t = target(client, name, base);
                        for (int s = 0; s < sessions; s++) {
                            Completion c = client.stream(
                                    t,
                                    Prompts.chat(
                                            t.model(),
                                            Prompts.sessionSystem(s),
                                            Prompts.userMessage(1, s),
                                            options.maxTokens(),
                                            true));
                            turns.get(k).add(c);
                            System.err.printf(
                                    Locale.ROOT,
                                    "%s %d/%d %s session %d: %s%n",
                                    w,
                                    i + 1,
                                    options.runs(),
                                    name,
                                    s,
                                    c.ok()
                                            ? String.format(Locale.ROOT, "%.1f ms to first token", c.ttftMs())
                                            : "failed: " + c.error());
                        }
                    }
                }
            }
        }
        double[] p50 = new double[names.size()];
        double[] p95 = new double[names.size()];
        double[] start = new double[names.size()];
        for (int k = 0; k < names.size(); k++) {
            String p = names.get(k) + "." + w + ".";
            List<Completion> ok = okOnes(turns.get(k));
            Stats ttft = Stats.of(ttfts(ok));
            p50[k] = ttft.p50();
            p95[k] = ttft.p95();
            start[k] = Stats.of(ready.get(k)).p50();
            report.metricOut(p + "ttft_p50_ms", ttft.p50());
            report.metricOut(p + "ttft_p95_ms", ttft.p95());
            report.metricOut(p + "ready_p50_ms", start[k]);
            report.metricOut(p + "prompt_tokens", mean(ok, c -> c.promptTokens()));
            report.metricOut(p + "success_count", ok.size());
            report.metricOut(p + "requests", turns.get(k).size());
        }
        if (names.size() == 2) {
            report.ratioOut(w + ".ttft_p50_ms", p50[0], p50[1]);
            report.ratioOut(w + ".ttft_p95_ms", p95[0], p95[1]);
            report.ratioOut(w + ".ready_p50_ms", start[0], start[1]);
        }
    }

    /** Deletes what {@code dir} holds (not the folder itself), creating it when absent. */
    private static void emptyFolder(Path dir) throws IOException {
        Files.createDirectories(dir);
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) {
                if (Files.isDirectory(f)) {
                    throw new IOException("--scratch " + dir + " holds a folder (" + f
                            + "): not a cache folder, refusing to empty it");
                }
                Files.delete(f);
            }
        }
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

    private void ratios(String w, List<Target> targets, List<List<Completion>> results, List<Figure> figures) {
        if (targets.size() != 2) {
            return;
        }
        List<Completion> a = okOnes(results.get(0));
        List<Completion> b = okOnes(results.get(1));
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

    private static List<Completion> okOnes(List<Completion> cs) {
        return cs.stream().filter(Completion::ok).toList();
    }

    private static List<Double> lat(List<Completion> cs) {
        return cs.stream().filter(Completion::ok).map(Completion::latencyMs).toList();
    }

    private static List<Double> ttfts(List<Completion> cs) {
        return cs.stream()
                .filter(Completion::ok)
                .map(Completion::ttftMs)
                .filter(Double::isFinite)
                .toList();
    }

    private static double mean(List<Completion> cs, ToDoubleFunction<Completion> f) {
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
