package forge.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The load generator's command line: {@code WORKLOAD [--option value]...}. Options that name a
 * server take {@code NAME=VALUE} and may repeat, once per server.
 *
 * @param workload   seed, ttft, conc, shared, sessions, restart, sampler, startup, rss, mapped, llama-bench or summary
 * @param servers    server name to base URL, in the order given (the first is the numerator of every ratio)
 * @param models     server name to model id (absent: the first of its {@code /v1/models})
 * @param commands   server name to the command that starts it (startup, rss), split on whitespace
 * @param runs       measured steps (sequential) or rounds (concurrent), or launches (startup, rss)
 * @param warmup     steps or rounds run first and dropped
 * @param maxTokens  tokens every request generates
 * @param clients    concurrent clients, one variant per value (conc)
 * @param llamaBench llama-bench's JSON output, for the decode ratio (ttft, llama-bench)
 * @param modelFile  the model file whose size is taken from the RSS (startup, rss)
 * @param logDir     where launched servers' output goes
 * @param scratch    a folder emptied before each server's first start of a restart round (restart:
 *                   ForgeLM's {@code --prompt-cache-dir}), if any
 * @param timeoutSec the longest one request or one server start may take
 * @param files      the files to read (summary)
 * @param bodies     server name to JSON fields added to each of its requests (seed, ttft): to compare
 *                   one server with itself, with and without a setting, request by request
 */
public record Options(
        String workload,
        Map<String, String> servers,
        Map<String, String> models,
        Map<String, String> commands,
        int runs,
        int warmup,
        int maxTokens,
        List<Integer> clients,
        Optional<Path> llamaBench,
        Optional<Path> modelFile,
        Path logDir,
        Optional<Path> scratch,
        int timeoutSec,
        List<Path> files,
        Map<String, String> bodies) {

    static final String USAGE = """
            usage: LoadGenerator WORKLOAD [options]
              workloads: seed | ttft | conc | shared | sessions | restart | startup | rss | mapped | llama-bench | summary FILE...
              --server NAME=URL      a server to measure (repeat: the first is the ratios' numerator); loopback only
              --model NAME=ID        its model id (default: the first of its /v1/models)
              --cmd NAME=COMMAND     how to start it (startup, rss, restart, mapped), split on whitespace;
                                     mapped: NAME_b, a second process of NAME on the same file (another port)
              --runs N               measured steps / rounds / launches
              --warmup N             unmeasured steps / rounds first
              --max-tokens N         tokens each request generates (ignore_eos)
              --clients N[,N...]     concurrent clients (conc); sessions (sessions, restart: the first value)
              --llama-bench FILE     llama-bench -o json output (ttft: decode ratio; llama-bench)
              --model-file FILE      model whose size is subtracted from the RSS (startup, rss)
              --log-dir DIR          launched servers' output (default: the temp dir)
              --scratch DIR          emptied before each round's first start (restart: the disk cache folder)
              --timeout SEC          per request / per start (default 600)
              --body NAME=JSON       fields added to each request to that server (seed, ttft), e.g. two names
                                     for one URL: the same server with and without a sampler stage
            """;

    /** Parses the arguments, with each workload's defaults. */
    public static Options parse(String... args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("no workload given");
        }
        String workload = args[0];
        Map<String, String> servers = new LinkedHashMap<>();
        Map<String, String> models = new LinkedHashMap<>();
        Map<String, String> commands = new LinkedHashMap<>();
        Map<String, String> bodies = new LinkedHashMap<>();
        Integer runs = null;
        Integer warmup = null;
        Integer maxTokens = null;
        List<Integer> clients = List.of(4, 8);
        Path llamaBench = null;
        Path modelFile = null;
        Path logDir = Path.of(System.getProperty("java.io.tmpdir"));
        Path scratch = null;
        int timeout = 600;
        List<Path> files = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--")) {
                files.add(Path.of(a));
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(a + " needs a value");
            }
            String v = args[++i];
            switch (a) {
                case "--server" -> put(servers, a, v);
                case "--model" -> put(models, a, v);
                case "--cmd" -> put(commands, a, v);
                case "--body" -> put(bodies, a, v);
                case "--runs" -> runs = positive(a, v, 1);
                case "--warmup" -> warmup = positive(a, v, 0);
                case "--max-tokens" -> maxTokens = positive(a, v, 1);
                case "--clients" -> {
                    List<Integer> list = new ArrayList<>();
                    for (String c : v.split(",")) {
                        list.add(positive(a, c.strip(), 1));
                    }
                    clients = List.copyOf(list);
                }
                case "--llama-bench" -> llamaBench = Path.of(v);
                case "--model-file" -> modelFile = Path.of(v);
                case "--log-dir" -> logDir = Path.of(v);
                case "--scratch" -> scratch = Path.of(v);
                case "--timeout" -> timeout = positive(a, v, 1);
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        // The defaults are the seed method's: 30 measured runs; the rest scaled for a small machine.
        int defRuns = switch (workload) {
            case "seed" -> 30;
            case "ttft" -> 10;
            case "startup", "rss", "mapped" -> 3;
            default -> 3;
        };
        int defWarmup = switch (workload) {
            case "startup", "rss", "restart", "mapped" -> 0;
            default -> 2;
        };
        int defTokens = switch (workload) {
            case "ttft" -> 128;
            case "shared" -> 16;
            default -> 32;
        };
        for (String name : models.keySet()) {
            if (!servers.containsKey(name)) {
                throw new IllegalArgumentException("--model for unknown server " + name);
            }
        }
        for (String name : bodies.keySet()) {
            if (!servers.containsKey(name)) {
                throw new IllegalArgumentException("--body for unknown server " + name);
            }
        }
        return new Options(
                workload,
                servers,
                models,
                commands,
                runs == null ? defRuns : runs,
                warmup == null ? defWarmup : warmup,
                maxTokens == null ? defTokens : maxTokens,
                clients,
                Optional.ofNullable(llamaBench),
                Optional.ofNullable(modelFile),
                logDir,
                Optional.ofNullable(scratch),
                timeout,
                List.copyOf(files),
                bodies);
    }

    private static void put(Map<String, String> map, String option, String value) {
        int eq = value.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException(option + " takes NAME=VALUE: " + value);
        }
        map.put(value.substring(0, eq), value.substring(eq + 1));
    }

    private static int positive(String option, String value, int min) {
        try {
            int n = Integer.parseInt(value);
            if (n >= min) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + " needs a whole number ≥ " + min + ": " + value);
    }
}
