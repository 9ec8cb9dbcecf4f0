package forge.http.cli;

import forge.api.ForgeException;
import forge.runtime.catalog.CatalogConfig;
import forge.runtime.catalog.KeepAlive;
import forge.runtime.catalog.ModelLoader;
import forge.runtime.catalog.UnloadPolicy;
import forge.runtime.engine.PromptCache;
import forge.runtime.engine.PromptCacheStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;

/**
 * {@code forge serve}'s flags for how models are loaded and kept: mapping, reloading a changed
 * file, when idle models unload, how long a request waits for a load, and the host prompt cache.
 */
final class LoadOptions extends OptionGroup {

    private static final Logger LOG = LoggerFactory.getLogger(ServeCommand.class);

    @Option(
            names = "--models-ttl",
            paramLabel = "DURATION",
            defaultValue = "-1",
            description = {
                "Unload a model idle this long (Ollama's keep_alive: 5m, 30s, 1h or seconds; 0 = after each request;",
                "default: ${DEFAULT-VALUE}, kept). A request's own keep_alive wins for the model it used."
            })
    String modelsTtl;

    @Option(
            names = "--models-max",
            paramLabel = "N",
            defaultValue = "0",
            description = {
                "Most models loaded at once; the least recently used idle one unloads first (default: ${DEFAULT-VALUE}, no limit)."
            })
    int modelsMax;

    @Option(
            names = "--models-memory",
            paramLabel = "MiB|auto",
            defaultValue = "auto",
            description = {
                "Most memory the loaded models take together (their files and KV caches); the least recently used idle",
                "ones unload first to make room (default: ${DEFAULT-VALUE}, 3/4 of the machine's RAM; 0 = no limit)."
            })
    String modelsMemory;

    @Option(
            names = "--models-load-wait",
            paramLabel = "DURATION",
            defaultValue = "10m",
            description = {
                "How long a request waits for its model to load before a 503 to retry (default: ${DEFAULT-VALUE})."
            })
    String modelsLoadWait;

    @Option(
            names = "--cache-ram",
            paramLabel = "MiB",
            defaultValue = "8192",
            description = {
                "Host-memory prompt cache beyond the slots, as llama-server's: a slot's state is kept there before a prompt",
                "that shares little with it replaces it, and restored for a prompt that starts with it (default: ${DEFAULT-VALUE};",
                "0 = off, -1 = no limit; capped at half the JVM's heap, where the states live)."
            })
    long cacheRamMib;

    @Option(
            names = "--prompt-cache-dir",
            paramLabel = "DIR",
            description = {
                "Keep the prompt cache in this folder across restarts (as large as --cache-ram allows): written in the",
                "background, read back at start for the same model file and settings; damaged or stale files are deleted."
            })
    Path promptCacheDir;

    @Option(
            names = "--mmap",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description = {
                "Map model files (default) instead of reading them into memory (--no-mmap, as llama-server spells it).",
                "Mapping starts without a copy of the file and shares its pages between processes; a mapped file changed",
                "in place is unloaded and reloaded (requests get 503 meanwhile), one replaced by rename keeps serving."
            })
    boolean mmap;

    @Option(
            names = "--model-file-settle",
            paramLabel = "DURATION",
            defaultValue = "2s",
            description = "How long a mapped model file changed in place must stay unchanged before it is reloaded"
                    + " (default: ${DEFAULT-VALUE}), so that a copy in progress is not loaded half written.")
    String modelFileSettle;

    /** These settings, into the catalog's {@code config}. */
    void apply(CatalogConfig.Builder config) {
        config.mmap(mmap)
                .fileSettle(
                        Flags.positive("--model-file-settle", Flags.duration("--model-file-settle", modelFileSettle)))
                .lifecycle(lifecycle());
        usePromptCache(config);
    }

    /** {@code --models-ttl}, {@code --models-max}, {@code --models-memory} and {@code --models-load-wait}. */
    ModelLoader.Lifecycle lifecycle() {
        KeepAlive ttl = parse("--models-ttl", KeepAlive::parse, modelsTtl);
        long memory;
        if (modelsMemory.equalsIgnoreCase("auto")) {
            memory = UnloadPolicy.defaultMemory(MachineMemory.totalMemory());
        } else {
            memory = parse(
                    "--models-memory",
                    t -> {
                        long mib = Long.parseLong(t.strip());
                        if (mib < 0) {
                            throw new IllegalArgumentException("expected MiB, 0 (no limit) or auto, got " + t);
                        }
                        return mib << 20;
                    },
                    modelsMemory);
        }
        UnloadPolicy limits =
                parse("--models-max", n -> new UnloadPolicy(modelsMax, memory), String.valueOf(modelsMax));
        Duration wait =
                parse("--models-load-wait", KeepAlive::parse, modelsLoadWait).duration();
        if (wait.isNegative() || wait.isZero()) {
            throw invalid("--models-load-wait: a positive duration, got " + modelsLoadWait);
        }
        return new ModelLoader.Lifecycle(ttl, limits, wait);
    }

    /** The host prompt cache of {@code --cache-ram}, kept in {@code --prompt-cache-dir} when given. */
    void usePromptCache(CatalogConfig.Builder config) {
        if (cacheRamMib < -1) {
            throw invalid("--cache-ram: expected MiB, 0 (off) or -1 (no limit), got " + cacheRamMib);
        }
        long requested = cacheRamMib == -1 ? Long.MAX_VALUE : cacheRamMib << 20;
        // The states are heap arrays: a cache the heap cannot hold would end the server with an OutOfMemoryError.
        long limit = Math.min(requested, Runtime.getRuntime().maxMemory() / 2);
        if (limit < requested && cacheRamMib != -1) {
            LOG.info(
                    "--cache-ram {} MiB exceeds half the JVM's heap; the prompt cache holds at most {} MiB",
                    cacheRamMib,
                    limit >> 20);
        }
        if (limit == 0) {
            if (promptCacheDir != null) {
                throw invalid("--prompt-cache-dir needs a prompt cache: --cache-ram is 0");
            }
            return;
        }
        PromptCache cache = new PromptCache(limit);
        PromptCacheStore store = null;
        if (promptCacheDir != null) {
            try {
                store = new PromptCacheStore(promptCacheDir, cache);
            } catch (IOException e) {
                throw new ForgeException("--prompt-cache-dir " + promptCacheDir + ": " + e.getMessage(), e);
            }
        }
        config.promptCache(cache, store);
    }
}
