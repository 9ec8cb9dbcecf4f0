package forge.bench;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The workloads that start the servers themselves ({@code --cmd}), apart from {@link LoadGenerator}'s
 * workloads against running ones: {@code startup} and {@code rss} (a launch to {@code /health} 200),
 * {@code mapped} (a large model's start, and two processes on one file) and {@code restart} (sessions
 * across a restart).
 *
 * @param options the command line
 * @param report  where the METRIC and RATIO lines go
 */
record ProcessWorkloads(Options options, Report report) {

    void launches(String w) throws IOException, InterruptedException {
        requireCommands(w);
        long modelBytes =
                options.modelFile().isPresent() ? Files.size(options.modelFile().get()) : 0;
        List<String> names = List.copyOf(options.servers().keySet());
        List<List<ProcessProbe.Launch>> results = perServer(names);
        Files.createDirectories(options.logDir());
        try (ChatClient client = new ChatClient(Duration.ofSeconds(10))) {
            for (int i = 0; i < options.warmup() + options.runs(); i++) {
                for (int k : Interleave.order(i, names.size())) {
                    String name = names.get(k);
                    URI base = base(name);
                    List<String> cmd = command(name);
                    Path log = log(w, name);
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
    void mapped() throws IOException, InterruptedException {
        String w = "mapped";
        requireCommands(w);
        List<String> names = options.servers().keySet().stream()
                .filter(n -> !n.endsWith("_b"))
                .toList();
        List<List<Double>> ready = perServer(names);
        List<List<Double>> first = perServer(names);
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
        return ProcessProbe.start(client, command(name), base(name), log(w, name), timeout);
    }

    /** A one-token, non-streamed completion: done once the first token is generated. */
    private Completion oneToken(ChatClient client, String name) throws IOException, InterruptedException {
        Target t = Target.of(client, name, base(name), options.models());
        return client.complete(t, Prompts.chat(t.model(), Prompts.SEED_SYSTEM, "Hi", 1, false));
    }

    /**
     * The restart case: each round, per server (interleaved), a start, every session's first turn
     * (its own long system prompt), a stop (SIGTERM), a second start, and every session's next turn,
     * whose time to first token is measured. ForgeLM restarts with its disk prompt cache
     * ({@code --prompt-cache-dir}, the {@code --scratch} folder, emptied before each round);
     * llama-server starts fresh, as it keeps its prompt cache in memory only.
     */
    void restart() throws IOException, InterruptedException {
        String w = "restart";
        requireCommands(w);
        int sessions = options.clients().getFirst();
        List<String> names = List.copyOf(options.servers().keySet());
        List<List<Completion>> turns = perServer(names);
        List<List<Double>> ready = perServer(names);
        Files.createDirectories(options.logDir());
        Duration timeout = Duration.ofSeconds(options.timeoutSec());
        try (ChatClient client = new ChatClient(timeout)) {
            for (int i = 0; i < options.runs(); i++) {
                for (int k : Interleave.order(i, names.size())) {
                    String name = names.get(k);
                    URI base = base(name);
                    List<String> cmd = command(name);
                    Path log = log(w, name);
                    if (options.scratch().isPresent()) {
                        emptyFolder(options.scratch().get());
                    }
                    try (var _ = ProcessProbe.start(client, cmd, base, log, timeout)) {
                        Target t = Target.of(client, name, base, options.models());
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
                        Target t = Target.of(client, name, base, options.models());
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
            List<Completion> ok = LoadGenerator.okOnes(turns.get(k));
            Stats ttft = Stats.of(LoadGenerator.ttfts(ok));
            p50[k] = ttft.p50();
            p95[k] = ttft.p95();
            start[k] = Stats.of(ready.get(k)).p50();
            report.metricOut(p + "ttft_p50_ms", ttft.p50());
            report.metricOut(p + "ttft_p95_ms", ttft.p95());
            report.metricOut(p + "ready_p50_ms", start[k]);
            report.metricOut(p + "prompt_tokens", LoadGenerator.mean(ok, c -> c.promptTokens()));
            report.metricOut(p + "success_count", ok.size());
            report.metricOut(p + "requests", turns.get(k).size());
        }
        if (names.size() == 2) {
            report.ratioOut(w + ".ttft_p50_ms", p50[0], p50[1]);
            report.ratioOut(w + ".ttft_p95_ms", p95[0], p95[1]);
            report.ratioOut(w + ".ready_p50_ms", start[0], start[1]);
        }
    }

    /** An empty list for each of the servers {@code names}, to collect their figures in. */
    private static <T> List<List<T>> perServer(List<String> names) {
        List<List<T>> lists = new ArrayList<>();
        names.forEach(n -> lists.add(new ArrayList<>()));
        return lists;
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

    /** The process workloads start the servers themselves: each {@code --server} needs its {@code --cmd}. */
    private void requireCommands(String w) {
        if (options.servers().isEmpty()
                || !options.commands().keySet().equals(options.servers().keySet())) {
            throw new IllegalArgumentException(w + " needs --server NAME=URL and --cmd NAME=COMMAND for each server");
        }
    }

    /** Where server {@code name} answers ({@code --server}), loopback only. */
    private URI base(String name) {
        return Target.requireLoopback(URI.create(options.servers().get(name)));
    }

    /** The command line that starts server {@code name} ({@code --cmd}), split at blanks. */
    private List<String> command(String name) {
        return List.of(options.commands().get(name).strip().split("\\s+"));
    }

    /** Server {@code name}'s output in workload {@code w}. */
    private Path log(String w, String name) {
        return options.logDir().resolve(w + "-" + name + ".log");
    }
}
