package forge.http.server;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.backend.Device;
import forge.api.sampler.SamplingParams;
import forge.api.sampler.StageParameter;
import forge.runtime.BackendChoice;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.ServedModel;
import forge.runtime.engine.EngineConfig;
import forge.runtime.engine.EngineHealth;
import forge.runtime.engine.EngineSnapshot;
import forge.runtime.engine.PromptCache;
import forge.runtime.engine.SlotSnapshot;
import forge.runtime.engine.SlotState;
import forge.runtime.plugin.SamplerStages;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code GET /slots} and {@code GET /props}, shaped like llama-server's. Both read what the engines
 * publish (their immutable snapshots and settings): no lock, nothing asked of an engine thread.
 */
final class ServerInfo {

    private final ModelCatalog catalog;
    private final SamplerStages stages;

    ServerInfo(ModelCatalog catalog, SamplerStages stages) {
        this.catalog = catalog;
        this.stages = stages;
    }

    /** {@code GET /health}: 200 and {@code ok} while every loaded model's engine runs; else 503 naming the failing ones. */
    ObjectNode health() {
        Map<String, EngineHealth> engines = new LinkedHashMap<>();
        for (ModelEntry entry : catalog.entries()) {
            entry.served().ifPresent(s -> engines.put(entry.id(), s.engine().health()));
        }
        return health(engines);
    }

    /**
     * The health of engines by model id: {@code {"status": "ok"}}, or {@code {"status": "error",
     * "models": [{"model", "state", "reason", "retrying"}]}} listing each engine that does not run.
     */
    static ObjectNode health(Map<String, EngineHealth> engines) {
        ObjectNode out = Json.MAPPER.createObjectNode();
        ArrayNode failing = Json.MAPPER.createArrayNode();
        engines.forEach((id, h) -> {
            if (h.state() == EngineHealth.State.FAILED) {
                failing.addObject()
                        .put("model", id)
                        .put("state", "failed")
                        .put("reason", h.reason())
                        .put("retrying", h.retrying());
            }
        });
        out.put("status", failing.isEmpty() ? "ok" : "error");
        if (!failing.isEmpty()) {
            out.set("models", failing);
        }
        return out;
    }

    /** Every slot of every loaded model: state ({@code idle}, {@code prefill}, {@code decode}), cached tokens, request id. */
    ArrayNode slots(Optional<String> model) {
        ArrayNode array = Json.MAPPER.createArrayNode();
        for (ModelEntry entry : entries(model)) {
            Optional<ServedModel> served = entry.served();
            if (served.isEmpty()) {
                continue;
            }
            int slotContext = served.get().engine().config().slotContext();
            EngineSnapshot snapshot = served.get().engine().snapshot();
            for (SlotSnapshot s : snapshot.slots()) {
                ObjectNode n = array.addObject();
                n.put("id", s.id());
                n.put("model", entry.id());
                n.put("n_ctx", slotContext);
                n.put("state", s.state().wire());
                n.put("is_processing", s.state() != SlotState.IDLE);
                n.put("cached_tokens", s.cachedTokens());
                n.put("request_id", s.requestId());
                n.put("prompt_tokens", s.promptTokens());
                n.put("reused_tokens", s.reusedTokens());
                n.put("restored_tokens", s.restoredTokens());
                n.put("generated_tokens", s.generated());
            }
        }
        return array;
    }

    private List<ModelEntry> entries(Optional<String> model) {
        if (model.isPresent()) {
            return List.of(catalog.find(model.get()).orElseThrow(() -> ForgeServer.unknownModel(model.get())));
        }
        return catalog.entries();
    }

    /**
     * The effective settings of one model (the one named, else the first loaded, else the first
     * known): llama-server's fields ({@code default_generation_settings}, {@code total_slots},
     * {@code model_path}, {@code n_ctx}, {@code chat_template}, {@code build_info}) plus the runtime
     * profile and every setting it resolved to.
     */
    ObjectNode props(Optional<String> model) {
        ModelEntry entry;
        if (model.isPresent()) {
            entry = catalog.find(model.get()).orElseThrow(() -> ForgeServer.unknownModel(model.get()));
        } else {
            entry = catalog.entries().stream()
                    .filter(e -> e.served().isPresent())
                    .findFirst()
                    .or(() -> catalog.entries().stream().findFirst())
                    .orElseThrow(() -> ApiError.notFound("model_not_found", "no models are configured"));
        }
        Optional<ServedModel> served = entry.served();
        // A loaded model reports its engine's settings (context capped by the model); else what it will get.
        EngineConfig c = served.map(s -> s.engine().config()).orElse(catalog.engineConfig());
        ObjectNode n = Json.MAPPER.createObjectNode();
        ObjectNode defaults = n.putObject("default_generation_settings");
        defaults.put("n_ctx", c.slotContext());
        ObjectNode params = defaults.putObject("params");
        SamplingParams d = SamplingParams.DEFAULTS;
        params.put("temperature", d.temperature());
        params.put("top_k", d.topK());
        params.put("top_p", d.topP());
        params.put("min_p", d.minP());
        params.put("repeat_penalty", d.repeatPenalty());
        params.put("repeat_last_n", d.repeatLastN());
        params.put("frequency_penalty", d.frequencyPenalty());
        params.put("presence_penalty", d.presencePenalty());
        params.put("seed", d.seed());
        n.put("total_slots", c.slots());
        // What requests that name none speculate with: llama-server's "speculative.*" names.
        params.put("speculative.types", c.speculation().type());
        params.put("speculative.n_max", c.speculation().draftMax());
        params.put("speculative.n_min", c.speculation().draftMin());
        params.put("speculative.ngram_size_n", c.speculation().ngramSize());
        params.put("speculative.p_min", c.speculation().pMin());
        n.put("model", entry.id());
        n.put("model_path", entry.descriptor().path().toString());
        n.put("loaded", served.isPresent());
        n.put("n_ctx", c.contextSize());
        // llama-server's multimodal flags; what a request may carry besides text
        n.putObject("modalities")
                .put("vision", ModelCapabilities.vision(entry))
                .put("audio", ModelCapabilities.audio(entry));
        entry.projector().ifPresent(p -> n.put("mmproj_path", p.toString()));
        n.put("chat_template", entry.template().variant());
        n.put("chat_template_family", entry.template().provider().family());
        String version = Optional.ofNullable(ServerInfo.class.getModule().getDescriptor())
                .flatMap(m -> m.rawVersion())
                .orElse("dev");
        n.put("build_info", "forgelm " + version + ", backend " + catalog.backendName());
        backend(n.putObject("backend"), served);
        samplerStages(n.putArray("sampler_stages"));
        ObjectNode runtime = n.putObject("runtime");
        runtime.put("profile", c.profile());
        runtime.put("n_ctx", c.contextSize());
        runtime.put("n_ctx_slot", c.slotContext());
        runtime.put("n_batch", c.batchSize());
        runtime.put("n_ubatch", c.ubatchSize());
        runtime.put("n_threads", c.threads());
        runtime.put("n_threads_batch", c.threadsBatch());
        runtime.put("flash_attn", c.flashAttention().wire());
        runtime.put("kv_cache_type", c.kvCacheType().wire());
        runtime.put("kv_unified", c.kvUnified()); // one pool for all slots, or a KV stream per slot
        // Why this context and this many slots: the start-up log says the same.
        served.ifPresentOrElse(
                s -> {
                    runtime.put("n_ctx_source", s.context().source());
                    runtime.put("n_ctx_reason", s.context().reason());
                },
                () -> {
                    runtime.put(
                            "n_ctx_source",
                            catalog.contextPolicy().contextSize().isPresent() ? "set" : "auto");
                    runtime.put(
                            "n_ctx_reason",
                            catalog.contextPolicy().contextSize().isPresent()
                                    ? "set for all slots together"
                                    : "decided when the model loads: its training context per slot, capped by the free memory");
                });
        runtime.put("slots_reason", catalog.contextPolicy().slotsReason());
        runtime.put("warmup", c.warmup());
        runtime.put("queue", c.queueCapacity());
        runtime.put("no_perf", true);
        // llama-server's --cache-ram, with what this model's engine did with it.
        PromptCache cache = catalog.promptCache();
        ObjectNode prompts = runtime.putObject("prompt_cache");
        prompts.put("cache_ram_mib", cache.limitBytes() == Long.MAX_VALUE ? -1 : cache.limitBytes() >> 20);
        prompts.put("bytes", cache.bytes());
        prompts.put("entries", cache.size());
        prompts.put(
                "dir", catalog.promptCacheStore().map(st -> st.dir().toString()).orElse(null));
        served.map(s -> s.engine().snapshot()).ifPresent(snap -> {
            prompts.put("saves", snap.cacheSaves());
            prompts.put("restores", snap.cacheRestores());
            prompts.put("restored_tokens", snap.restoredTokens());
        });
        return n;
    }

    /**
     * {@code sampler_stages}: the plugin stages a request's {@code samplers} may name, each with
     * its module and parameters (name, type, default), as {@code forge plugins} lists them.
     */
    private void samplerStages(ArrayNode out) {
        for (SamplerStages.Stage stage : stages.all()) {
            ObjectNode n = out.addObject();
            n.put("name", stage.info().name());
            n.put("module", stage.module());
            n.put("description", stage.info().description());
            ArrayNode params = n.putArray("parameters");
            for (StageParameter p : stage.info().parameters()) {
                ObjectNode param = params.addObject();
                param.put("name", p.name());
                param.put(
                        "type",
                        switch (p) {
                            case StageParameter.Int i -> "integer";
                            case StageParameter.Num x -> "number";
                            case StageParameter.Bool b -> "boolean";
                            case StageParameter.Text t -> "string";
                        });
                param.set("default", Json.MAPPER.valueToTree(p.fallback()));
                param.put("description", p.description());
            }
        }
    }

    /**
     * {@code backend}: the one serving, its devices with their memory now, where this model's layers
     * went, and every candidate with its verdict (as the start-up log and {@code forge plugins} say).
     */
    private void backend(ObjectNode b, Optional<ServedModel> served) {
        b.put("name", catalog.backendName());
        ArrayNode devices = b.putArray("devices");
        for (Device d : catalog.backend().devices()) {
            devices.addObject()
                    .put("name", d.name())
                    .put("description", d.description())
                    .put("type", d.type())
                    .put("memory_free", d.freeBytes())
                    .put("memory_total", d.totalBytes())
                    .put("memory_used", d.totalBytes() - d.freeBytes());
        }
        served.ifPresent(s -> {
            ObjectNode o = b.putObject("offload");
            int layers = s.model().info().layers() + 1;
            s.model()
                    .offload()
                    .ifPresentOrElse(
                            off -> o.put("n_gpu_layers", off.offloaded())
                                    .put("n_layers", off.layers())
                                    .put("bytes", off.bytes())
                                    .put("reason", off.reason())
                                    .set("devices", Json.MAPPER.valueToTree(off.devices())),
                            () -> o.put("n_gpu_layers", 0)
                                    .put("n_layers", layers)
                                    .put("reason", "no GPU devices: every layer runs on the CPU"));
        });
        ArrayNode candidates = b.putArray("candidates");
        for (BackendChoice c : catalog.backendChoices()) {
            candidates
                    .addObject()
                    .put("name", c.name())
                    .put("module", c.module())
                    .put("location", c.location())
                    .put("priority", c.priority())
                    .put("usable", c.verdict().isUsable())
                    .put("detail", c.verdict().detail())
                    .put("chosen", c.chosen());
        }
    }
}
