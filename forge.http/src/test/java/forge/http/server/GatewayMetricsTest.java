package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.http.cli.Http;
import forge.http.cli.TestServer;
import forge.lib.gguf.synth.SynthSpec;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The gauges Kubernetes' inference gateway scores a replica by, read from {@code /metrics} as its
 * endpoint picker reads them: the family found by its vLLM name, of type gauge, its value taken.
 * One slot, so that a second and third request queue behind the first.
 */
class GatewayMetricsTest {

    /** The context's KV cells: the one slot's stream. */
    static final int CELLS = 8192;

    @AutoClose
    static TestServer server;

    static Http http;

    @BeforeAll
    static void start() {
        // Wide and long enough that an 8000-token answer takes far longer than the test needs to read the gauges.
        Path model = TestServer.model(
                "gateway-qwen",
                SynthSpec.tiny("qwen").withShape(256, 4, 8, 2, 768).withContextLength(CELLS));
        server = TestServer.serve(model, "-np 1 -t 2 -b 64 --queue 4", "-c", Integer.toString(CELLS));
        http = server.http();
    }

    /** One sample: its labels and value. */
    record Sample(Map<String, String> labels, double value) {}

    /** A metric family of the text format: its TYPE and samples, as Prometheus' parser yields them. */
    record Family(String type, List<Sample> samples) {
        double value() {
            assertEquals(1, samples.size(), "one series per model, and one model: " + samples);
            return samples.getFirst().value();
        }
    }

    /** The last scrape's text, for failure messages. */
    static String last = "";

    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\",?");

    /** Parses a text-format scrape into families by name (the picker's expfmt parse, for what is used here). */
    static Map<String, Family> scrape() throws Exception {
        var r = http.get("/metrics");
        assertEquals(200, r.statusCode());
        Map<String, String> types = new HashMap<>();
        Map<String, List<Sample>> samples = new LinkedHashMap<>();
        for (String line : r.body().split("\n")) {
            if (line.startsWith("# TYPE ")) {
                String[] p = line.split(" ");
                types.put(p[2], p[3]);
            } else if (!line.isBlank() && !line.startsWith("#")) {
                Matcher m = SAMPLE.matcher(line);
                assertTrue(m.matches(), "not a sample line: " + line);
                Map<String, String> labels = new LinkedHashMap<>();
                if (m.group(2) != null) {
                    Matcher l = LABEL.matcher(m.group(2));
                    while (l.find()) {
                        labels.put(l.group(1), l.group(2));
                    }
                }
                samples.computeIfAbsent(m.group(1), k -> new ArrayList<>())
                        .add(new Sample(labels, Double.parseDouble(m.group(3))));
            }
        }
        last = r.body();
        Map<String, Family> families = new HashMap<>();
        samples.forEach((name, s) -> families.put(name, new Family(types.getOrDefault(name, "untyped"), s)));
        return families;
    }

    static Family gauge(Map<String, Family> scrape, String name) {
        Family f = scrape.get(name);
        assertTrue(f != null, name + " is missing from " + scrape.keySet() + "\n" + last);
        assertEquals("gauge", f.type(), name);
        String label = name.startsWith("vllm:") ? "model_name" : "model"; // vLLM's label, ForgeLM's own
        f.samples().forEach(s -> assertEquals("gateway-qwen", s.labels().get(label), name + ": " + s));
        return f;
    }

    /** Scrapes until {@code condition} holds, within a deadline; returns that scrape. */
    static Map<String, Family> awaitScrape(String what, Predicate<Map<String, Family>> condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            Map<String, Family> s = scrape();
            if (condition.test(s)) {
                return s;
            }
            assertTrue(
                    System.nanoTime() < deadline,
                    "timed out waiting for " + what + "; last: waiting="
                            + gauge(s, "vllm:num_requests_waiting").value() + " running="
                            + gauge(s, "vllm:num_requests_running").value()
                            + " kv=" + gauge(s, "vllm:kv_cache_usage_perc").value());
            Thread.sleep(20);
        }
    }

    /** A streamed chat on a raw socket, left open until the test closes it (which cancels it). */
    static Socket stream(String user) throws Exception {
        String body = """
                {"model": "gateway-qwen", "max_tokens": 8000, "temperature": 0, "ignore_eos": true, "stream": true,
                 "messages": [{"role": "user", "content": "%s"}]}""".formatted(user);
        Socket socket = new Socket("127.0.0.1", server.port());
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        OutputStream out = socket.getOutputStream();
        out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + "Content-Length: " + bytes.length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.flush();
        return socket;
    }

    @Test
    void queuedAndRunningRequestsAndKvUsageShowUnderVllmNames() throws Exception {
        Map<String, Family> idle = awaitScrape(
                "an idle engine", s -> gauge(s, "vllm:num_requests_running").value() == 0);
        assertEquals(0, gauge(idle, "vllm:num_requests_waiting").value());
        assertEquals(0, gauge(idle, "vllm:kv_cache_usage_perc").value());

        // The KV shape: llama.cpp's one cell per token, all the context's cells, the cache type.
        Sample config = gauge(idle, "vllm:cache_config_info").samples().getFirst();
        assertEquals(1, config.value());
        assertEquals("1", config.labels().get("block_size"));
        assertEquals(Integer.toString(CELLS), config.labels().get("num_gpu_blocks"));
        assertEquals(CELLS, gauge(idle, "forge_kv_cells").value());
        assertEquals("f16", config.labels().get("cache_dtype"));

        List<Socket> sockets = new ArrayList<>();
        try {
            Socket first = stream("first");
            sockets.add(first);
            // One slot: whichever is admitted first runs, the other two wait.
            BufferedReader in =
                    new BufferedReader(new InputStreamReader(first.getInputStream(), StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null && !line.startsWith("data: {"); line = in.readLine()) {
                // headers, then the first chunk
            }
            sockets.add(stream("second"));
            sockets.add(stream("third"));
            // In one scrape, as the picker sees a replica: the first's prompt in its cells, two waiting.
            Map<String, Family> busy = awaitScrape(
                    "one running with cells and two waiting",
                    s -> gauge(s, "vllm:num_requests_waiting").value() == 2
                            && gauge(s, "vllm:num_requests_running").value() == 1
                            && gauge(s, "vllm:kv_cache_usage_perc").value() > 0);
            double kv = gauge(busy, "vllm:kv_cache_usage_perc").value();
            assertTrue(kv <= 1, "a fraction of the cells: " + kv);
            assertEquals(kv, gauge(busy, "vllm:gpu_cache_usage_perc").value(), "vLLM's older name, the same value");
            // Grows as the running request decodes: the cells are read live, not once per request.
            awaitScrape(
                    "the running request's cells to grow",
                    s -> gauge(s, "vllm:kv_cache_usage_perc").value() > kv);
            // Cells over the context's cells: a whole number of cells.
            double cells = kv * CELLS;
            assertEquals(Math.rint(cells), cells, 1e-6, "cells over cells: " + kv);
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
        }
        // All cancelled: nothing waits or runs, and the cells a finished request leaves cached count
        // as free (vLLM's meaning), though ForgeLM's own gauge still shows them held.
        Map<String, Family> after = awaitScrape(
                "all three cancelled",
                s -> gauge(s, "vllm:num_requests_running").value() == 0
                        && gauge(s, "vllm:num_requests_waiting").value() == 0);
        assertEquals(0, gauge(after, "vllm:kv_cache_usage_perc").value());
        assertTrue(gauge(after, "forge_kv_cells_used").value() > 0, "the slot keeps its cells for prefix reuse");
    }
}
