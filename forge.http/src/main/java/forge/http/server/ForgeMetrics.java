package forge.http.server;

import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.ServedModel;
import forge.runtime.engine.Engine;
import forge.runtime.engine.EngineSnapshot;
import forge.runtime.engine.Timings;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.core.metrics.MetricWithFixedMetadata;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.ToDoubleFunction;

/**
 * The server's Prometheus metrics ({@code GET /metrics}, text format), through the Prometheus Java
 * client: HTTP requests by route and status with their latency, and per model the tokens,
 * time to first token and decode speed of every generation, plus gauges and counters read from
 * each engine's published {@link EngineSnapshot} at scrape time (queue depth, busy slots, KV
 * cells, prefill and prefix-cache counters), so the engine thread never touches a metric. Beside
 * them, {@link GatewayMetrics}: the load gauges Kubernetes' inference gateway reads, under vLLM's names.
 */
final class ForgeMetrics {

    /** Routes that get their own label; anything else is {@code other}, so a scanner cannot grow the label set. */
    private static final Set<String> ROUTES = Set.of(
            "/health", "/v1/models", "/v1/chat/completions", "/props", "/slots", "/metrics", "/infill", "/v1/rerank");

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
    private final Counter requests;
    private final Histogram latency;
    private final Histogram firstToken;
    private final Histogram decodeSpeed;
    private final Counter promptTokens;
    private final Counter completionTokens;
    private final Counter cachedTokens;

    ForgeMetrics(ModelCatalog catalog) {
        requests = Counter.builder()
                .name("forge_http_requests_total")
                .help("HTTP requests by route and status")
                .labelNames("route", "status")
                .register(registry);
        latency = histogram(
                "forge_http_request_duration_seconds", "HTTP request latency, to the last byte", "route", new double[] {
                    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120
                });
        firstToken = histogram(
                "forge_time_to_first_token_seconds",
                "From submission (queue wait included) to the first generated token",
                "model",
                new double[] {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30});
        decodeSpeed = histogram(
                "forge_decode_tokens_per_second",
                "Decode speed of each generation after its first token",
                "model",
                new double[] {1, 5, 10, 20, 40, 60, 80, 100, 150, 200, 300, 500, 1000, 2000});
        promptTokens = modelCounter("forge_prompt_tokens_total", "Prompt tokens of finished generations");
        completionTokens = modelCounter("forge_completion_tokens_total", "Tokens generated");
        cachedTokens = modelCounter(
                "forge_cached_prompt_tokens_total", "Prompt tokens taken from the KV cache instead of computed");
        gauge(catalog, "forge_queue_depth", "Requests waiting for a slot", Engine::queued);
        gauge(
                catalog,
                "forge_slots_busy",
                "Slots running a request",
                e -> e.snapshot().busySlots());
        gauge(catalog, "forge_slots_total", "Slots", e -> e.config().slots());
        gauge(
                catalog,
                "forge_kv_cells_used",
                "KV cells held by the slots (each slot has its own KV stream)",
                e -> e.snapshot().kvCellsUsed());
        gauge(
                catalog,
                "forge_kv_cells",
                "KV cells of the context",
                e -> e.snapshot().kvCells());
        counter(
                catalog,
                "forge_prefill_tokens_total",
                "Prompt tokens computed by the engine",
                e -> e.snapshot().prefilledTokens());
        counter(
                catalog,
                "forge_prefix_reused_tokens_total",
                "Prompt tokens reused from a slot's cache or copied from another slot",
                e -> e.snapshot().reusedTokens());
        counter(
                catalog,
                "forge_prefix_copies_total",
                "Prompt prefixes shared from one slot to another",
                e -> e.snapshot().prefixCopies());
        // Images: each encode is one the slots and the prompt cache did not hold already.
        counter(
                catalog,
                "forge_media_encodes_total",
                "Media chunks (images) encoded by the model's projector",
                e -> e.snapshot().mediaEncodes());
        counter(
                catalog,
                "forge_media_tokens_total",
                "Embeddings the encoded media chunks decoded into the context",
                e -> e.snapshot().mediaTokens());
        // Speculative decoding, in llama-server's names.
        counter(
                catalog,
                "llamacpp:spec_decode_num_draft_tokens_total",
                "Speculative: Total draft tokens generated",
                e -> e.snapshot().draftTokens());
        counter(
                catalog,
                "llamacpp:spec_decode_num_accepted_tokens_total",
                "Speculative: Total draft tokens accepted by the target model",
                e -> e.snapshot().draftAccepted());
        counter(
                catalog,
                "llamacpp:spec_decode_num_drafts_total",
                "Speculative: Total speculative decoding verification steps",
                e -> e.snapshot().draftSteps());
        GatewayMetrics.register(registry, catalog);
    }

    /** A histogram by {@code label} with fixed buckets (the classic ones Prometheus scrapes as text). */
    private Histogram histogram(String name, String help, String label, double[] bounds) {
        return Histogram.builder()
                .name(name)
                .help(help)
                .labelNames(label)
                .classicOnly()
                .classicUpperBounds(bounds)
                .register(registry);
    }

    /** A counter by model, counted as generations finish. */
    private Counter modelCounter(String name, String help) {
        return byModel(Counter.builder(), name, help);
    }

    /** A gauge by model, read from each served model's engine at scrape time. */
    private void gauge(ModelCatalog catalog, String name, String help, ToDoubleFunction<Engine> value) {
        byModel(GaugeWithCallback.builder().callback(cb -> perEngine(catalog, value, cb::call)), name, help);
    }

    /** A counter by model, read from each served model's engine at scrape time. */
    private void counter(ModelCatalog catalog, String name, String help, ToDoubleFunction<Engine> value) {
        byModel(CounterWithCallback.builder().callback(cb -> perEngine(catalog, value, cb::call)), name, help);
    }

    /** What a scrape-time metric's callback is handed, gauge or counter alike: a value and its labels. */
    @FunctionalInterface
    private interface Sample {
        void call(double value, String... labelValues);
    }

    /** Hands {@code sample} the {@code value} of each served model's engine, labelled by the model's id. */
    private static void perEngine(ModelCatalog catalog, ToDoubleFunction<Engine> value, Sample sample) {
        forEachEngine(catalog, (id, e) -> sample.call(value.applyAsDouble(e), id));
    }

    /** The metric {@code builder} builds, named, labelled by model and registered. */
    private <M extends MetricWithFixedMetadata, B extends MetricWithFixedMetadata.Builder<B, M>> M byModel(
            B builder, String name, String help) {
        return builder.name(name).help(help).labelNames("model").register(registry);
    }

    /** Runs {@code action} with each served model's id and engine. */
    static void forEachEngine(ModelCatalog catalog, BiConsumer<String, Engine> action) {
        for (ModelEntry entry : catalog.entries()) {
            entry.served().map(ServedModel::engine).ifPresent(e -> action.accept(entry.id(), e));
        }
    }

    /** Counts one finished HTTP request. */
    void request(String path, int status, long nanos) {
        String route = ROUTES.contains(path) ? path : path.startsWith("/v1/models/") ? "/v1/models/{id}" : "other";
        requests.labelValues(route, Integer.toString(status)).inc();
        latency.labelValues(route).observe(nanos / 1e9);
    }

    /** Counts one finished generation. */
    void generation(String model, Timings t) {
        promptTokens.labelValues(model).inc(t.promptTokens());
        completionTokens.labelValues(model).inc(t.completionTokens());
        cachedTokens.labelValues(model).inc(t.cachedTokens());
        if (t.completionTokens() > 0) {
            firstToken.labelValues(model).observe(t.firstTokenMs() / 1000);
        }
        if (t.decodeTokensPerSecond() > 0) {
            decodeSpeed.labelValues(model).observe(t.decodeTokensPerSecond());
        }
    }

    String contentType() {
        return writer.getContentType();
    }

    /** The scrape, in Prometheus text format. */
    byte[] scrape() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
        try {
            writer.write(out, registry.scrape());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
