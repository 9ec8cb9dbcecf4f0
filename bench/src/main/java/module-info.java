/**
 * ForgeLM's load generator: runs the same workloads against ForgeLM and llama.cpp's
 * {@code llama-server}, interleaved request by request, and prints {@code METRIC} and
 * {@code RATIO} lines. It speaks HTTP to both servers (loopback only) and depends on nothing
 * of ForgeLM, so it measures the product exactly as a client sees it.
 *
 * <p>Run by {@code bench/run.sh} and {@code bench/autoresearch.sh}; see {@link forge.bench.LoadGenerator}.
 * {@link forge.bench.Soak} is {@code bench/soak.sh}'s client: mixed requests for minutes, the
 * server's memory, open files and threads sampled from {@code /proc} and required flat.
 */
module forge.bench {
    requires java.net.http;
    // Jackson's tree types are in the generator's API (the prompts it builds, the answers it reads).
    requires transitive com.fasterxml.jackson.databind;

    exports forge.bench;
}
