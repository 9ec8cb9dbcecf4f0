package forge.http.server;

import forge.api.backend.LoraAdapter;
import forge.runtime.catalog.AdapterFile;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.ServedModel;
import forge.runtime.engine.Engine;
import forge.runtime.engine.EngineSnapshot;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The load metrics that Kubernetes' inference gateway (the Gateway API Inference Extension's endpoint
 * picker, llm-d's router) scores replicas by, under vLLM's names and with vLLM's meaning, so that a
 * pool of ForgeLM replicas is picked with the picker's built-in vLLM metric set and no configuration:
 * <ul>
 * <li>{@code vllm:num_requests_waiting}: requests queued for a slot;</li>
 * <li>{@code vllm:num_requests_running}: requests in a slot (prefill or decode);</li>
 * <li>{@code vllm:kv_cache_usage_perc}: a fraction, 0 to 1 (vLLM's name says "perc"; its value is a
 *     fraction): KV cells held by running requests over the context's cells. A finished request's
 *     cells stay cached for prefix reuse but are free for the next request, as vLLM counts its
 *     cached blocks without a running request as free ({@code forge_kv_cells_used} counts them). Also
 *     under vLLM's older name, {@code vllm:gpu_cache_usage_perc}, which vLLM still exports and some
 *     releases of the picker read by default;</li>
 * <li>{@code vllm:cache_config_info}: value 1, the KV cache's shape in labels. llama.cpp allocates KV
 *     per token (one cell per token, no pages), so {@code block_size} is 1 and {@code num_gpu_blocks}
 *     is the context's cells, on whatever device holds them; each slot has its own KV stream of
 *     {@code n_ctx / slots} cells.</li>
 * <li>{@code vllm:lora_requests_info}: for each served model that has LoRA adapters, one series
 *     whose labels say which adapters (by the model id each is served under) the running requests
 *     apply ({@code running_lora_adapters}), which the queued ones do ({@code waiting_lora_adapters}),
 *     comma-separated, and how many can be applied at once ({@code max_lora}: every adapter of the
 *     model is loaded with it, so all of them); its value is the time of the scrape in seconds, as
 *     vLLM's is the time of its last update (the picker reads the newest series). The gateway's LoRA
 *     affinity routes a request for an adapter to a replica already running it.</li>
 * </ul>
 * Every series carries vLLM's {@code model_name} label (the served model's id). Values are read
 * from each engine's published snapshot (and its queue) at scrape time, like the rest of
 * {@link ForgeMetrics}.
 */
final class GatewayMetrics {

    private GatewayMetrics() {}

    /** Registers the gauges, read from the catalog's served models at every scrape. */
    static void register(PrometheusRegistry registry, ModelCatalog catalog) {
        GaugeWithCallback.builder()
                .name("vllm:num_requests_waiting")
                .help("Requests waiting for a slot (vLLM's meaning)")
                .labelNames("model_name")
                .callback(cb -> ForgeMetrics.forEachEngine(catalog, (id, e) -> cb.call(e.queued(), id)))
                .register(registry);
        GaugeWithCallback.builder()
                .name("vllm:num_requests_running")
                .help("Requests running in a slot (vLLM's meaning)")
                .labelNames("model_name")
                .callback(cb -> ForgeMetrics.forEachEngine(
                        catalog, (id, e) -> cb.call(e.snapshot().busySlots(), id)))
                .register(registry);
        for (String name : new String[] {"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}) {
            GaugeWithCallback.builder()
                    .name(name)
                    .help(
                            "KV cache usage, 0 to 1: cells held by running requests over the context's cells (vLLM's meaning)")
                    .labelNames("model_name")
                    .callback(cb -> ForgeMetrics.forEachEngine(catalog, (id, e) -> cb.call(usage(e.snapshot()), id)))
                    .register(registry);
        }
        GaugeWithCallback.builder()
                .name("vllm:cache_config_info")
                .help("KV cache configuration; llama.cpp allocates one cell per token, so a block is one cell")
                .labelNames("model_name", "block_size", "num_gpu_blocks", "cache_dtype", "enable_prefix_caching")
                .callback(cb -> ForgeMetrics.forEachEngine(
                        catalog,
                        (id, e) -> cb.call(
                                1,
                                id,
                                "1",
                                Integer.toString(e.snapshot().kvCells()),
                                e.config().kvCacheType().wire(),
                                "True")))
                .register(registry);
        registerLora(registry, catalog);
    }

    /** Registers vLLM's LoRA info gauge. */
    private static void registerLora(PrometheusRegistry registry, ModelCatalog catalog) {
        GaugeWithCallback.builder()
                .name("vllm:lora_requests_info")
                .help("LoRA adapters of running and waiting requests; the value is the time of the scrape in seconds")
                .labelNames("model_name", "running_lora_adapters", "waiting_lora_adapters", "max_lora")
                .callback(cb -> {
                    double now = System.currentTimeMillis() / 1000.0;
                    for (ModelEntry entry : catalog.entries()) {
                        ServedModel served = entry.served().orElse(null);
                        if (served == null || served.adapters().isEmpty()) {
                            continue;
                        }
                        Engine e = served.engine();
                        cb.call(
                                now,
                                entry.id(),
                                names(entry, served, e.snapshot().runningAdapters()),
                                names(entry, served, e.waitingAdapters()),
                                Integer.toString(served.adapters().size()));
                    }
                })
                .register(registry);
    }

    /** The model ids of {@code adapters}, in the model's order, comma-separated. */
    static String names(ModelEntry entry, ServedModel served, Set<LoraAdapter> adapters) {
        List<AdapterFile> files = entry.adapters();
        List<LoraAdapter> loaded = served.adapters();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < loaded.size() && i < files.size(); i++) {
            if (adapters.contains(loaded.get(i))) {
                names.add(files.get(i).id());
            }
        }
        return String.join(",", names);
    }

    /** Cells held by running requests over all cells, 0 to 1. */
    static double usage(EngineSnapshot s) {
        return s.kvCells() == 0 ? 0 : Math.min(1.0, (double) s.kvCellsRunning() / s.kvCells());
    }
}
