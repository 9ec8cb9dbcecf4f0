package forge.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs a workload against all servers interleaved, so they share the machine's noise (thermal
 * state, other processes, page cache) rather than each getting its own stretch of time.
 *
 * <p>Step {@code i} goes to every server in turn, alternating the order (A B, B A, A B, ...):
 * whichever server goes second in a step runs just after the other one's work, and alternating
 * spreads that effect evenly. Only one server is busy at a time. Warmup steps run the same way
 * and are dropped.
 */
public final class Interleave {

    /** One request of a sequential workload: step {@code step} for {@code target}. */
    @FunctionalInterface
    public interface Request {
        Completion run(Target target, int step);
    }

    /** One client's request in a round of a concurrent workload. */
    @FunctionalInterface
    public interface ClientRequest {
        Completion run(Target target, int round, int client);
    }

    /**
     * A round of a concurrent workload on one server.
     *
     * @param wallMs   first request sent to the last one finished
     * @param requests each client's measurement
     */
    public record Round(double wallMs, List<Completion> requests) {
        /** Completion tokens of all requests over the wall time: aggregate tokens per second. */
        public double aggregateTps() {
            int tokens = requests.stream()
                    .filter(Completion::ok)
                    .mapToInt(Completion::completionTokens)
                    .sum();
            return wallMs > 0 ? tokens / (wallMs / 1000.0) : Double.NaN;
        }
    }

    private Interleave() {}

    /** The order in which {@code servers} servers get step {@code step}: indices, alternating. */
    public static int[] order(int step, int servers) {
        int[] order = new int[servers];
        for (int k = 0; k < servers; k++) {
            order[k] = step % 2 == 0 ? k : servers - 1 - k;
        }
        return order;
    }

    /**
     * A sequential workload: {@code warmup + runs} steps, one request per server per step.
     *
     * @param progress told of each measured step's results, by server index
     * @return per server (in {@code targets} order), the measured requests
     */
    public static List<List<Completion>> sequential(
            List<Target> targets, int warmup, int runs, Request request, StepListener<Completion> progress) {
        List<List<Completion>> results = empty(targets.size());
        for (int step = 0; step < warmup + runs; step++) {
            Completion[] row = new Completion[targets.size()];
            for (int idx : order(step, targets.size())) {
                row[idx] = request.run(targets.get(idx), step);
            }
            if (step >= warmup) {
                for (int idx = 0; idx < row.length; idx++) {
                    results.get(idx).add(row[idx]);
                }
            }
            progress.step(step - warmup, runs, List.of(row));
        }
        return results;
    }

    /**
     * A concurrent workload: in each round, for each server in turn, {@code clients} requests
     * start together (on virtual threads) and the round ends when all have finished.
     *
     * @return per server, the measured rounds
     */
    public static List<List<Round>> rounds(
            List<Target> targets,
            int warmup,
            int rounds,
            int clients,
            ClientRequest request,
            StepListener<Round> progress) {
        List<List<Round>> results = empty(targets.size());
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int r = 0; r < warmup + rounds; r++) {
                Round[] row = new Round[targets.size()];
                for (int idx : order(r, targets.size())) {
                    row[idx] = round(threads, targets.get(idx), r, clients, request);
                }
                if (r >= warmup) {
                    for (int idx = 0; idx < row.length; idx++) {
                        results.get(idx).add(row[idx]);
                    }
                }
                progress.step(r - warmup, rounds, List.of(row));
            }
        }
        return results;
    }

    private static Round round(ExecutorService threads, Target target, int r, int clients, ClientRequest request) {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Completion>> futures = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            int client = c;
            futures.add(threads.submit(() -> {
                go.await();
                return request.run(target, r, client);
            }));
        }
        long start = System.nanoTime();
        go.countDown();
        List<Completion> done = new ArrayList<>();
        for (Future<Completion> f : futures) {
            try {
                done.add(f.get());
            } catch (Exception e) {
                done.add(Completion.failed(0, Double.NaN, e.toString()));
            }
        }
        return new Round(ChatStream.ms(System.nanoTime() - start), done);
    }

    private static <T> List<List<T>> empty(int n) {
        List<List<T>> lists = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            lists.add(new ArrayList<>());
        }
        return lists;
    }

    /** Told of each step: its index among the measured ones (negative during warmup), and each server's result. */
    @FunctionalInterface
    public interface StepListener<T> {
        void step(int measured, int of, List<T> results);

        static <T> StepListener<T> none() {
            return (measured, of, results) -> {};
        }
    }
}
