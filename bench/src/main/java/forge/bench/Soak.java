package forge.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * The client side of {@code bench/soak.sh}: several clients send a mix of requests for a number
 * of minutes (chat whole and streamed, forced tool calls, {@code /v1/completions}, streams
 * dropped after their first token, bodies the server must refuse), while the server's memory,
 * open files and threads are sampled each minute ({@link ProcSample}). It fails when a request
 * gets a 5xx or anything but its expected answer, when one takes longer than the timeout (a
 * hang), when a slot is left busy, or when the samples are not {@link Flatness flat}.
 *
 * <p>Usage: {@code Soak --server URL --pid PID [--minutes 30] [--clients 6] [--max-tokens 16] [--timeout 120]}.
 */
public final class Soak {

    /** What one request of the mix is. */
    enum Kind {
        WHOLE,
        STREAM,
        TOOLS,
        COMPLETION,
        ABORT,
        BAD
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Bodies every route refuses with a 400: malformed, of the wrong types, or asking the impossible. */
    static final List<byte[]> BAD_BODIES = List.of(
            utf8("{"),
            utf8("[1]"),
            utf8("{\"messages\": 5}"),
            utf8("{\"model\": null, \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}"),
            utf8("{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"temperature\": 9}"),
            utf8("{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]} trailing"),
            utf8("{\"messages\": " + "[".repeat(100) + "]".repeat(100) + "}"),
            new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xC0, (byte) 0xAF, '"', '}'},
            utf8("{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"tool_choice\": \"required\"}"),
            utf8("{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"grammar\": \"root ::= [\\\\x00]\"}"),
            utf8("{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"tools\": [{\"type\": \"function\","
                    + " \"function\": {\"name\": \"not a name\"}}]}"));

    private static final String TOOL = """
            {"type": "function", "function": {"name": "get_weather", "description": "The weather in a city",
             "parameters": {"type": "object", "properties": {"city": {"type": "string", "maxLength": 16},
              "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}}}""";

    private final URI base;
    private final String model;
    private final int maxTokens;
    private final Duration timeout;
    private final HttpClient http;
    private final Map<Kind, LongAdder> done = new EnumMap<>(Kind.class);
    private final LongAdder requests = new LongAdder();
    private final LongAdder failures = new LongAdder();
    /** The first failures, for the report. */
    private final Queue<String> failed = new ConcurrentLinkedQueue<>();

    Soak(URI base, String model, int maxTokens, Duration timeout, HttpClient http) {
        this.base = base;
        this.model = model;
        this.maxTokens = maxTokens;
        this.timeout = timeout;
        this.http = http;
        for (Kind k : Kind.values()) {
            done.put(k, new LongAdder());
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o =
                new HashMap<>(Map.of("--minutes", "30", "--clients", "6", "--max-tokens", "16", "--timeout", "120"));
        for (int i = 0; i + 1 < args.length; i += 2) {
            o.put(args[i], args[i + 1]);
        }
        if (!o.containsKey("--server") || !o.containsKey("--pid") || args.length % 2 != 0) {
            System.err.println(
                    "usage: Soak --server URL --pid PID [--minutes 30] [--clients 6] [--max-tokens 16] [--timeout 120]");
            System.exit(2);
        }
        URI base = Target.requireLoopback(URI.create(o.get("--server")));
        long pid = Long.parseLong(o.get("--pid"));
        int minutes = Integer.parseInt(o.get("--minutes"));
        int clients = Integer.parseInt(o.get("--clients"));
        Duration timeout = Duration.ofSeconds(Integer.parseInt(o.get("--timeout")));
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
                HttpClient http = HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .executor(executor)
                        .connectTimeout(Duration.ofSeconds(10))
                        .build();
                ChatClient probe = new ChatClient(Duration.ofSeconds(10))) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (probe.health(base) != 200) {
                if (System.nanoTime() > deadline) {
                    throw new IOException(base + " is not healthy after 120 s");
                }
                Thread.sleep(200);
            }
            Soak soak =
                    new Soak(base, probe.firstModelId(base), Integer.parseInt(o.get("--max-tokens")), timeout, http);
            System.exit(soak.run(pid, minutes, clients) ? 0 : 1);
        }
    }

    /** Runs the load for {@code minutes}, sampling each minute; true when nothing failed and all is flat. */
    boolean run(long pid, int minutes, int clients) throws Exception {
        List<ProcSample> samples = new ArrayList<>();
        System.out.println(ProcSample.header());
        samples.add(print(ProcSample.read(pid, 0, 0)));
        AtomicBoolean stop = new AtomicBoolean();
        long start = System.nanoTime();
        try (ExecutorService load = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                running.add(load.submit(() -> client(client, stop)));
            }
            for (int minute = 1; minute <= minutes; minute++) {
                long wait = start + TimeUnit.MINUTES.toNanos(minute) - System.nanoTime();
                TimeUnit.NANOSECONDS.sleep(Math.max(0, wait));
                samples.add(print(ProcSample.read(pid, minute, requests.sum())));
            }
            stop.set(true);
            for (Future<?> f : running) {
                f.get(); // each client ends its last request within the timeout
            }
        }
        String slots = slotsLeftBusy();
        List<String> notFlat = Flatness.problems(samples, clients);

        System.out.println();
        StringBuilder mix = new StringBuilder("requests:");
        done.forEach((k, n) -> mix.append(' ')
                .append(k.name().toLowerCase(Locale.ROOT))
                .append('=')
                .append(n.sum()));
        System.out.println(mix + ", failed=" + failures.sum());
        failed.forEach(f -> System.out.println("  FAILED " + f));
        if (!slots.isEmpty()) {
            System.out.println("  FAILED " + slots);
        }
        notFlat.forEach(p -> System.out.println("  NOT FLAT " + p));
        boolean ok = failures.sum() == 0 && slots.isEmpty() && notFlat.isEmpty();
        System.out.println(ok ? "soak: PASS" : "soak: FAIL");
        return ok;
    }

    private static ProcSample print(ProcSample s) {
        System.out.println(s.row());
        return s;
    }

    /** One client: requests of every kind in turn, each within the timeout, until told to stop. */
    private Void client(int client, AtomicBoolean stop) throws InterruptedException {
        Kind[] kinds = Kind.values();
        try (ExecutorService one = Executors.newVirtualThreadPerTaskExecutor()) {
            for (long n = 0; !stop.get(); n++) {
                Kind kind = kinds[(int) ((client + n) % kinds.length)];
                String prompt = "Soak client " + client + ", request " + n + ": tell me about the weather.";
                int bad = (int) (n / kinds.length % BAD_BODIES.size());
                Future<String> f = one.submit(() -> send(kind, prompt, bad));
                String problem;
                try {
                    problem = f.get(timeout.toSeconds(), TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    f.cancel(true);
                    problem = "no answer within " + timeout.toSeconds() + " s (a hang)";
                } catch (ExecutionException e) {
                    problem = "failed: " + e.getCause();
                }
                requests.increment();
                if (problem.isEmpty()) {
                    done.get(kind).increment();
                } else {
                    failures.increment();
                    if (failed.size() < 20) {
                        failed.add(kind + " " + problem);
                    }
                }
            }
        }
        return null;
    }

    /** Sends one request of {@code kind}: "" when it was answered as it must be, else what was wrong. */
    private String send(Kind kind, String prompt, int bad) throws IOException, InterruptedException {
        String messages = "[{\"role\": \"user\", \"content\": " + JSON.writeValueAsString(prompt) + "}]";
        return switch (kind) {
            case WHOLE -> {
                HttpResponse<String> r = post("/v1/chat/completions", """
                        {"model": "%s", "max_tokens": %d, "ignore_eos": true, "messages": %s}""".formatted(model, maxTokens, messages));
                yield checkWhole(r.statusCode(), r.body(), "message");
            }
            case STREAM -> streamed("""
                    {"model": "%s", "max_tokens": %d, "ignore_eos": true, "stream": true,
                     "stream_options": {"include_usage": true}, "messages": %s}""".formatted(model, maxTokens, messages), false);
            case TOOLS -> {
                HttpResponse<String> r = post("/v1/chat/completions", """
                        {"model": "%s", "max_tokens": 64, "tools": [%s], "tool_choice": "required", "messages": %s}""".formatted(model, TOOL, messages));
                yield checkWhole(r.statusCode(), r.body(), "message");
            }
            case COMPLETION -> {
                HttpResponse<String> r =
                        post("/v1/completions", """
                        {"model": "%s", "max_tokens": %d, "ignore_eos": true, "prompt": %s}""".formatted(model, maxTokens, JSON.writeValueAsString(prompt)));
                yield checkWhole(r.statusCode(), r.body(), "text");
            }
            case ABORT -> streamed("""
                    {"model": "%s", "max_tokens": 512, "ignore_eos": true, "stream": true, "messages": %s}""".formatted(model, messages), true);
            case BAD -> {
                HttpResponse<String> r = http.send(
                        request("/v1/chat/completions", BAD_BODIES.get(bad)), HttpResponse.BodyHandlers.ofString());
                yield checkRefused(r.statusCode(), r.body());
            }
        };
    }

    private HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
        return http.send(request(path, utf8(body)), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest request(String path, byte[] body) {
        return HttpRequest.newBuilder(Target.resolve(base, path))
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
    }

    /** A streamed chat read to its end, or, when {@code abort}, dropped after its first event with content. */
    private String streamed(String body, boolean abort) throws IOException, InterruptedException {
        HttpResponse<InputStream> r =
                http.send(request("/v1/chat/completions", utf8(body)), HttpResponse.BodyHandlers.ofInputStream());
        List<String> events = new ArrayList<>();
        try (InputStream in = r.body();
                BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            SseParser sse = new SseParser();
            String line;
            while ((line = lines.readLine()) != null) {
                var event = sse.line(line);
                if (event.isPresent()) {
                    events.add(event.get());
                    if (abort && r.statusCode() == 200 && event.get().contains("\"content\":\"")) {
                        return ""; // closing the stream now drops the connection: the server must cancel
                    }
                }
            }
            sse.finish().ifPresent(events::add);
        }
        if (r.statusCode() != 200) {
            return "HTTP " + r.statusCode() + ": " + events;
        }
        return abort ? "the stream ended before any content: " + events : checkStream(events);
    }

    /** A 200 whose first choice has a finish_reason and a {@code field} ("message" or "text"). */
    static String checkWhole(int status, String body, String field) {
        if (status != 200) {
            return "HTTP " + status + ": " + body;
        }
        try {
            JsonNode choice = JSON.readTree(body).path("choices").path(0);
            if (choice.path("finish_reason").asText("").isEmpty()
                    || choice.path(field).isMissingNode()) {
                return "no finish_reason or " + field + ": " + body;
            }
            if (choice.path("finish_reason").asText().equals("tool_calls")
                    && choice.path("message").path("tool_calls").isEmpty()) {
                return "finish_reason tool_calls without tool_calls: " + body;
            }
            return "";
        } catch (IOException e) {
            return "not JSON: " + body;
        }
    }

    /** A stream's events: no error, a finish_reason, and {@code [DONE]} last. */
    static String checkStream(List<String> events) {
        if (events.isEmpty() || !events.getLast().equals("[DONE]")) {
            return "the stream did not end with [DONE]: " + events;
        }
        boolean finished = false;
        for (String event : events.subList(0, events.size() - 1)) {
            try {
                JsonNode chunk = JSON.readTree(event);
                if (chunk.has("error")) {
                    return "an error event: " + event;
                }
                finished |= !chunk.path("choices")
                                .path(0)
                                .path("finish_reason")
                                .asText("")
                                .isEmpty()
                        && !chunk.path("choices").path(0).path("finish_reason").isNull();
            } catch (IOException e) {
                return "an event that is not JSON: " + event;
            }
        }
        return finished ? "" : "no finish_reason in the stream: " + events;
    }

    /** A bad body's answer: a 400 in OpenAI's error shape. */
    static String checkRefused(int status, String body) {
        if (status != 400) {
            return "a bad body got HTTP " + status + ": " + body;
        }
        try {
            return JSON.readTree(body).path("error").path("message").isTextual()
                    ? ""
                    : "a 400 without an error message: " + body;
        } catch (IOException e) {
            return "a 400 that is not JSON: " + body;
        }
    }

    /** "" when every slot of {@code /slots} is idle, else which are not. */
    private String slotsLeftBusy() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(Target.resolve(base, "/slots"))
                            .timeout(timeout)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            List<String> busy = new ArrayList<>();
            for (JsonNode slot : JSON.readTree(r.body())) {
                if (!slot.path("state").asText().equals("idle")) {
                    busy.add("slot " + slot.path("id").asText() + " "
                            + slot.path("state").asText());
                }
            }
            if (busy.isEmpty()) {
                return "";
            }
            if (System.nanoTime() > deadline) {
                return "slots still busy after the load: " + busy;
            }
            Thread.sleep(200);
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
