/**
 * The load generator: workloads, an SSE client that measures time to first token, percentile
 * statistics and the {@code METRIC}/{@code RATIO} report lines.
 *
 * <p>A run of the {@code seed} workload against both servers:
 * {@snippet lang = "shell" :
 * java -p bench/target/forge-bench.jar:bench/target/lib -m forge.bench/forge.bench.LoadGenerator \
 *     seed --server forge=http://127.0.0.1:8090 --server peer=http://127.0.0.1:8091 \
 *     --runs 30 --warmup 3 --max-tokens 32
 * }
 * which prints, among others, {@code METRIC forge.seed.p95_ms=...}, {@code METRIC peer.seed.p95_ms=...}
 * and {@code RATIO seed.p95_ms=...} (forge / peer).
 *
 * <p>The soak ({@code bench/soak.sh}) runs {@link forge.bench.Soak} against a started server:
 * {@snippet lang = "shell" :
 * java -p bench/target/forge-bench.jar:bench/target/lib -m forge.bench/forge.bench.Soak \
 *     --server http://127.0.0.1:8090 --pid 12345 --minutes 30 --clients 6
 * }
 * which prints a row of {@link forge.bench.ProcSample} each minute and fails unless every request
 * was answered as it must be and the rows are {@link forge.bench.Flatness flat}.
 */
package forge.bench;
