package forge.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two replicas of the image's {@code forge serve} behind HAProxy (Debian's), health-checked on
 * {@code /health}: one replica stopped with SIGTERM under load finishes every stream it runs
 * (ForgeLM's drain), HAProxy takes it out of the pool as its {@code /health} turns 503, and new
 * requests go to the other. The configuration is the README's "Running several replicas" one.
 */
class ReplicasTest {

    /**
     * A model wide enough to decode at a few dozen tokens a second (the web UI tests' slow shape),
     * with room for long answers: a 400-token answer takes far longer than starting the other
     * streams (the test checks that the stopped replica's streams still run when it is stopped),
     * yet ends well within the grace on a 2-core machine shared with other builds. The tiny model
     * answered 1000 tokens on a quiet machine before the fourth stream had started. One thread per
     * replica: two replicas of two spinning llama.cpp threads each on two loaded cores decoded at
     * about 3 tokens a second per stream, and outlived a 300 s grace.
     */
    private static final List<String> MODEL = List.of(
            "--ctx", "4096", "--embd", "512", "--layers", "8", "--ffn", "1024", "--heads", "8", "--kv-heads", "2");

    private static final String STREAM = """
            {"model": "tiny", "stream": true, "max_tokens": 400, "ignore_eos": true,
             "messages": [{"role": "user", "content": "Tell me a story, %d."}]}""";
    private static final String SHORT = """
            {"model": "tiny", "max_tokens": 4, "messages": [{"role": "user", "content": "Hi, %d."}]}""";

    private final HttpClient http = HttpClient.newHttpClient();

    /** HAProxy's configuration for two replicas, as in the README (ports filled in). */
    static String haproxyConfig(int front, int stats, int a, int b) {
        return """
                global
                    maxconn 256
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 10m
                    timeout server 10m
                    # A request refused by a replica that began draining between two checks goes to the other.
                    option redispatch
                    retries 2
                    retry-on conn-failure empty-response 503
                    option http-buffer-request
                frontend forge
                    bind 127.0.0.1:%d
                    default_backend replicas
                backend replicas
                    balance leastconn
                    # Ready = model loaded and not draining: /health is 200 then, 503 while loading or draining.
                    option httpchk GET /health
                    http-check expect status 200
                    default-server inter 250ms fall 1 rise 2
                    http-response set-header X-Forge-Replica %%s
                    server a 127.0.0.1:%d check
                    server b 127.0.0.1:%d check
                frontend stats
                    bind 127.0.0.1:%d
                    stats enable
                    stats uri /stats
                """.formatted(front, a, b, stats);
    }

    /** The replicas' states in HAProxy's CSV stats: server name to status (UP, DOWN, ...). */
    Map<String, String> states(int statsPort) throws Exception {
        String csv = http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + statsPort + "/stats;csv"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        Map<String, String> states = new HashMap<>();
        String[] header =
                csv.lines().findFirst().orElseThrow().replaceFirst("^# ", "").split(",");
        int status = List.of(header).indexOf("status");
        csv.lines()
                .skip(1)
                .map(l -> l.split(",", -1))
                .filter(f -> f.length > status && f[0].equals("replicas"))
                .forEach(f -> states.put(f[1], f[status]));
        return states;
    }

    void awaitStates(int statsPort, Map<String, String> expected, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            Map<String, String> now;
            try {
                now = states(statsPort);
            } catch (IOException notYet) {
                now = Map.of();
            }
            if (now.entrySet().containsAll(expected.entrySet())) {
                return;
            }
            assertTrue(
                    System.nanoTime() < deadline,
                    "HAProxy never saw " + expected + ", last " + now + ":\n" + Files.readString(log));
            Thread.sleep(100);
        }
    }

    /** Replica {@code name}, in its own folder of {@code work}: its streams have 300 s to finish once it is stopped. */
    private static ImageServer replica(Path work, String name) throws Exception {
        return ImageServer.start(
                Files.createDirectories(work.resolve(name)),
                MODEL,
                "-c",
                "4096",
                "-t",
                "1",
                "--shutdown-grace",
                "300s");
    }

    @Test
    void aReplicaStoppedUnderLoadFinishesItsStreamsAndNewRequestsGoToTheOther(@TempDir Path work) throws Exception {
        Path haproxy = HostTools.require("haproxy", "haproxy");
        try (ImageServer a = replica(work, "a");
                ImageServer b = replica(work, "b")) {
            int front = HostTools.freePort();
            int stats = HostTools.freePort();
            Path config = work.resolve("haproxy.cfg");
            Files.writeString(config, haproxyConfig(front, stats, port(a), port(b)));
            Path log = work.resolve("haproxy.log");
            Process proxy = new ProcessBuilder(haproxy.toString(), "-db", "-f", config.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            try {
                awaitStates(stats, Map.of("a", "UP", "b", "UP"), log);
                String base = "http://127.0.0.1:" + front;

                // Load: four streams, two slots on each replica; leastconn spreads them two and two.
                List<ChatStream> streams = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    streams.add(ChatStream.start(http, base, STREAM.formatted(i)));
                }
                List<ChatStream> onA = streams.stream()
                        .filter(s -> s.header("X-Forge-Replica").orElse("").equals("a"))
                        .toList();
                assertEquals(2, onA.size(), "leastconn put two streams on each replica");
                onA.forEach(s ->
                        assertTrue(!s.lines().isDone(), "a stream on the replica to stop ended before it was stopped"));

                a.terminate();
                // A's /health turns 503 (draining): HAProxy takes it out of the pool.
                awaitStates(stats, Map.of("a", "DOWN", "b", "UP"), log);
                for (int i = 0; i < 4; i++) {
                    HttpResponse<String> r = http.send(
                            HttpRequest.newBuilder(URI.create(base + "/v1/chat/completions"))
                                    .header("Content-Type", "application/json")
                                    .POST(HttpRequest.BodyPublishers.ofString(SHORT.formatted(i)))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
                    assertEquals(200, r.statusCode(), r.body());
                    assertEquals(
                            "b",
                            r.headers().firstValue("X-Forge-Replica").orElse(""),
                            "a new request went to the draining replica");
                }

                // No running stream was lost: every one, on either replica, ran to its length and [DONE].
                for (ChatStream s : streams) {
                    List<String> lines = s.lines().get(360, TimeUnit.SECONDS);
                    assertEquals("data: [DONE]", lines.getLast(), lines.toString());
                    assertTrue(lines.get(lines.size() - 2).contains("\"finish_reason\":\"length\""), lines.toString());
                    assertTrue(lines.stream().noneMatch(l -> l.contains("\"error\"")), lines.toString());
                }
                assertEquals(0, a.exitCode(60), a.log());
            } finally {
                proxy.destroy();
                if (!proxy.waitFor(10, TimeUnit.SECONDS)) {
                    proxy.destroyForcibly();
                }
            }
        }
    }

    static int port(ImageServer server) {
        return Integer.parseInt(server.base.substring(server.base.lastIndexOf(':') + 1));
    }
}
