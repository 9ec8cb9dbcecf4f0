package forge.http.cli;

import forge.api.backend.FlashAttention;
import forge.api.backend.KvCacheType;
import forge.runtime.catalog.ContextSizing;
import forge.runtime.engine.EngineConfig;
import forge.runtime.engine.EngineProfile;
import forge.runtime.engine.Speculation;
import picocli.CommandLine.Option;

/**
 * {@code forge serve}'s engine settings: the profile, and the flags (llama-server's) that set
 * slots, context, batches, threads, attention and the KV cache on top of it.
 */
final class EngineOptions extends OptionGroup {

    @Option(
            names = "--profile",
            paramLabel = "NAME",
            defaultValue = "default",
            description = {
                "Runtime profile: the defaults for the settings below (default: ${DEFAULT-VALUE}).",
                "  default      ctx 4096, batch/ubatch 512, flash attention auto, f16 KV (llama-server's)",
                "  low-latency  batch/ubatch 256: smaller prefill chunks, streams keep flowing; flash attention on",
                "  throughput   ctx 16384 for many slots, batch 2048/ubatch 512; flash attention on",
                "  low-memory   ctx 2048, q8_0 KV cache, batch 256/ubatch 128; flash attention on"
            })
    String profile;

    @Option(
            names = {"-c", "--ctx-size"},
            description = {
                "KV cache cells for all slots together (capped at the model's training context per slot).",
                "Default: the model's training context per slot, capped by the memory its KV cache needs against the free memory",
                "(the start-up log and /props say what was chosen and why); other profiles than default set their own."
            })
    Integer contextSize;

    @Option(
            names = {"-np", "--parallel"},
            paramLabel = "N|auto",
            defaultValue = "auto",
            description = {
                "Slots: sequences decoded together, each with its own KV cache (default: ${DEFAULT-VALUE}, "
                        + DEFAULT_SLOTS + " slots:",
                "an editor's autocomplete runs beside its chat instead of waiting for it; see /props)."
            })
    String parallel;

    /**
     * The slots of {@code -np auto}. Two, by measurement (bench/SLOTS.md): a second slot costs no
     * decode time, only its KV cache's memory, and lets an autocomplete request run beside a chat
     * (0.9 s) instead of waiting for the whole chat answer (5.8 s); since every slot has a KV
     * stream of its own, a long agent prompt still gets the model's whole training context in its
     * slot (memory permitting), where llama-server's 4 slots over one unified cache pay for
     * sharing with slower decoding at depth. A 3rd and 4th slot add nothing to a chat and its
     * autocomplete but caches, whose memory the automatic context then divides.
     */
    static final int DEFAULT_SLOTS = 2;

    static final String SLOTS_REASON =
            "-np auto: " + DEFAULT_SLOTS + " slots, each with its own KV cache, so an autocomplete"
                    + " runs beside a chat instead of waiting for it (measured: answered in 0.9 s instead of 5.8 s), and a long prompt"
                    + " still gets its slot's whole context; an idle slot costs its cache's memory, no decode time (bench/SLOTS.md)";

    @Option(
            names = {"-t", "--threads"},
            description = "Threads for decoding (default: all cores).")
    Integer threads;

    @Option(
            names = {"-tb", "--threads-batch"},
            description = "Threads for prompt prefill (default: --threads).")
    Integer threadsBatch;

    @Option(
            names = {"-b", "--batch-size"},
            description = "Most tokens per decode step (default: from the profile).")
    Integer batchSize;

    @Option(
            names = {"-ub", "--ubatch-size"},
            description = "Physical batch size (default: from the profile).")
    Integer ubatchSize;

    @Option(
            names = {"-fa", "--flash-attn"},
            paramLabel = "auto|on|off",
            description = "Flash attention (default: from the profile; a quantized KV cache turns it on).")
    String flashAttention;

    @Option(
            names = {"--kv-type"},
            paramLabel = "TYPE",
            description = "KV cache type for keys and values: f16, q8_0, q4_0 (default: from the profile).")
    String kvType;

    @Option(
            names = {"-ctk", "--cache-type-k"},
            paramLabel = "TYPE",
            description =
                    "As llama-server: the K cache type; ForgeLM uses one type for K and V, so it must agree with --cache-type-v.")
    String cacheTypeK;

    @Option(
            names = {"-ctv", "--cache-type-v"},
            paramLabel = "TYPE",
            description = "As llama-server: the V cache type (see --cache-type-k).")
    String cacheTypeV;

    @Option(names = "--no-warmup", description = "Skip the warmup decode at load.")
    boolean noWarmup;

    @Option(
            names = {"-kvu", "--kv-unified"},
            description = {
                "One KV pool of --ctx-size cells that all slots share, as llama-server's default: a request may use the",
                "whole context when the others leave it room; idle slots' cached prompts give way to running requests,",
                "and a request the pool cannot hold gets 503 and Retry-After (default: a KV stream per slot)."
            })
    boolean kvUnified;

    @Option(
            names = {"-no-kvu", "--no-kv-unified"},
            description = "A KV stream of an equal share of --ctx-size per slot (the default).")
    boolean noKvUnified;

    @Option(
            names = "--queue",
            defaultValue = "64",
            description = "Requests that may wait for a slot before new ones get 503 (default: ${DEFAULT-VALUE}).")
    int queue;

    /**
     * The profile's settings with every flag given on top of them, and {@code speculation}.
     *
     * @throws picocli.CommandLine.ParameterException naming the flag, for settings that do not fit
     */
    EngineConfig engineConfig(Speculation speculation) {
        EngineProfile p = parse("--profile", EngineProfile::named, profile);
        KvCacheType kv = kvType != null ? parse("--kv-type", KvCacheType::parse, kvType) : null;
        if (cacheTypeK != null || cacheTypeV != null) {
            KvCacheType k = cacheTypeK != null ? parse("--cache-type-k", KvCacheType::parse, cacheTypeK) : null;
            KvCacheType v = cacheTypeV != null ? parse("--cache-type-v", KvCacheType::parse, cacheTypeV) : k;
            k = k != null ? k : v;
            if (k != v || (kv != null && kv != k)) {
                throw invalid("ForgeLM uses one KV cache type for keys and values: "
                        + "--cache-type-k, --cache-type-v and --kv-type must agree (got " + k + ", " + v
                        + (kv != null ? ", " + kv : "") + ")");
            }
            kv = k;
        }
        KvCacheType cache = kv != null ? kv : p.kvCacheType();
        FlashAttention fa = flashAttention != null
                ? parse("--flash-attn", FlashAttention::parse, flashAttention)
                : p.flashAttention();
        int t = threads != null ? threads : Math.max(1, Runtime.getRuntime().availableProcessors());
        int slots = slots();
        return valid(() -> new EngineConfig(
                slots,
                contextSize != null ? contextSize : p.contextSize(),
                batchSize != null ? batchSize : p.batchSize(),
                ubatchSize != null ? ubatchSize : p.ubatchSize(),
                t,
                threadsBatch != null ? threadsBatch : t,
                queue,
                fa,
                cache,
                p.name(),
                !noWarmup,
                speculation,
                kvUnified()));
    }

    /** {@code -kvu} / {@code -no-kvu}: one KV pool for all slots, or a stream per slot (the default). */
    boolean kvUnified() {
        if (kvUnified && noKvUnified) {
            throw invalid("--kv-unified and --no-kv-unified contradict each other");
        }
        return kvUnified;
    }

    /** {@code -np}: a number of slots, or {@code auto}. */
    int slots() {
        return parallel.equalsIgnoreCase("auto")
                ? DEFAULT_SLOTS
                : atLeast(1, parallel, "-np/--parallel: a positive number of slots or auto, got '" + parallel + "'");
    }

    /**
     * How each model's context is sized: {@code -c}, or a profile other than {@code default}, gives
     * it; else each slot gets the model's training context, capped by the free memory.
     */
    ContextSizing.Policy contextPolicy(EngineConfig engine) {
        ContextSizing.Policy policy = contextSize != null || !engine.profile().equals(EngineProfile.DEFAULT.name())
                ? ContextSizing.Policy.fixed(engine.contextSize())
                : ContextSizing.Policy.auto(MachineMemory.availableMemory());
        return policy.withSlotsReason(parallel.equalsIgnoreCase("auto") ? SLOTS_REASON : "-np " + engine.slots());
    }
}
