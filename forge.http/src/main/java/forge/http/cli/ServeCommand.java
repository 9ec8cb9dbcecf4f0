package forge.http.cli;

import forge.api.ForgeException;
import forge.api.backend.FlashAttention;
import forge.api.backend.KvCacheType;
import forge.http.server.ForgeServer;
import forge.http.server.ServerConfig;
import forge.lib.gguf.synth.SynthSpec;
import forge.lib.gguf.synth.SyntheticModels;
import forge.runtime.ForgeRuntime;
import forge.runtime.catalog.CatalogConfig;
import forge.runtime.catalog.ContextSizing;
import forge.runtime.catalog.KeepAlive;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.ModelLoader;
import forge.runtime.catalog.UnloadPolicy;
import forge.runtime.engine.EngineConfig;
import forge.runtime.engine.EngineProfile;
import forge.runtime.engine.PromptCache;
import forge.runtime.engine.PromptCacheStore;
import forge.runtime.engine.Speculation;
import forge.runtime.engine.SyntheticAcceptance;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code forge serve}: the OpenAI-compatible server, with flags close to llama-server's. */
@Command(
        name = "serve",
        mixinStandardHelpOptions = true,
        description = {
            "Serve GGUF models over an OpenAI-compatible HTTP API.",
            "Without --model it serves the user's models where they are: ~/.forge/models (or --models-dir), Ollama's,",
            "LM Studio's and the Hugging Face cache's (each can be turned off), loaded on demand; when there are none,",
            "a small generated demo model (random weights: its text is noise)."
        })
public final class ServeCommand implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger(ServeCommand.class);
    private static volatile boolean serving;

    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions common = new CommonOptions();

    @Option(
            names = {"-m", "--model"},
            paramLabel = "FILE",
            description = "A GGUF model to serve (repeatable).")
    List<Path> models = new ArrayList<>();

    @Option(
            names = "--lora",
            paramLabel = "FILE",
            split = ",",
            description = "A LoRA adapter of the model given with -m, applied at scale 1 to requests that name no"
                    + " lora (repeatable, or comma-separated; ids from 0 in the order given, --lora before"
                    + " --lora-scaled).")
    List<Path> lora = new ArrayList<>();

    @Option(
            names = "--lora-scaled",
            paramLabel = "FILE:SCALE",
            split = ",",
            description =
                    "A LoRA adapter of the model given with -m, applied at SCALE (repeatable, or comma-separated).")
    List<String> loraScaled = new ArrayList<>();

    @Option(
            names = {"-mm", "--mmproj"},
            paramLabel = "[MODEL=]FILE",
            description = "A multimodal projector (mmproj GGUF): of the model given with -m (FILE), or of one model"
                    + " by id or alias (MODEL=FILE; repeatable). Wins over a projector found beside the model;"
                    + " its embedding width must be the model's (a projector that does not fit fails the load).")
    List<String> mmproj = new ArrayList<>();

    @Option(
            names = "--no-mmproj",
            description = "Load no projector found beside a model (only those given with --mmproj): no images in.")
    boolean noMmproj;

    /** The models {@code --mmproj MODEL=FILE} names: each must answer once the catalog is read. */
    private final List<String> projectorModels = new ArrayList<>();

    @Option(
            names = "--lora-init-without-apply",
            description = "Load the --lora adapters at scale 0: requests apply them with lora, or POST /lora-adapters.")
    boolean loraWithoutApply;

    @Option(
            names = {"-a", "--alias"},
            paramLabel = "NAME",
            description = "Another name for the (first) model (repeatable).")
    List<String> aliases = new ArrayList<>();

    @Mixin
    ModelSourceOptions sources = new ModelSourceOptions();

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
            names = "--host",
            defaultValue = "127.0.0.1",
            description = "Address to listen on (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(
            names = "--port",
            defaultValue = "8080",
            description = "Port to listen on; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int port;

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

    // Speculative decoding, in llama-server's flags: n-gram lookup, or a draft model.
    @Option(
            names = "--spec-type",
            paramLabel = "TYPE",
            defaultValue = "none",
            description = {
                "Speculative decoding: none (default), ngram-simple (drafts from the request's own context and output)",
                "or draft-simple (drafts by --model-draft, which implies it); verified in one batch, output unchanged.",
                "A request may turn it off or on ('speculative.n_max')."
            })
    String specType;

    @Option(
            names = "--spec-ngram-simple-size-n",
            paramLabel = "N",
            defaultValue = "" + Speculation.DEFAULT_NGRAM,
            description = "Tokens an n-gram draft's lookup matches (default: ${DEFAULT-VALUE}).")
    int specNgram;

    @Option(
            names = "--spec-ngram-simple-size-m",
            paramLabel = "N",
            defaultValue = "" + Speculation.DEFAULT_DRAFT_MAX,
            description = "The most tokens an n-gram draft holds (default: ${DEFAULT-VALUE}).")
    int specNgramMax;

    @Option(
            names = {"--spec-draft-n-max", "--draft-max", "--draft", "--draft-n"},
            paramLabel = "N",
            description = {
                "The most tokens drafted per step (default: " + Speculation.DEFAULT_MODEL_DRAFT_MAX
                        + " with a draft model,",
                "--spec-ngram-simple-size-m for n-gram drafts)."
            })
    Integer specDraftMax;

    @Option(
            names = {"--spec-draft-n-min", "--draft-min", "--draft-n-min"},
            paramLabel = "N",
            defaultValue = "0",
            description = "A shorter draft is not proposed (default: ${DEFAULT-VALUE}).")
    int specDraftMin;

    @Option(
            names = {"--spec-draft-model", "-md", "--model-draft"},
            paramLabel = "FILE",
            description = {
                "A draft model (GGUF) for speculative decoding, loaded beside each served model; its vocabulary must",
                "match the model's (a model it cannot draft for is refused at load, with the reason)."
            })
    Path draftModel;

    @Option(
            names = {"--spec-draft-p-min", "--draft-p-min"},
            paramLabel = "P",
            defaultValue = "0",
            description =
                    "A draft model's draft ends before a token less likely than this (default: ${DEFAULT-VALUE}).")
    float specDraftPMin;

    @Option(
            names = {"--spec-draft-ngl", "-ngld", "--gpu-layers-draft", "--n-gpu-layers-draft"},
            paramLabel = "N",
            defaultValue = "auto",
            description = "The draft model's layers on a GPU: a number, auto (default) or all.")
    String draftGpuLayers;

    @Option(
            names = "--spec-synth-len",
            paramLabel = "L",
            description = {
                "Benchmarks only: accept draft tokens at random so that a step yields L tokens on average (the target's",
                "included), as llama-server's; the output is then not the model's."
            })
    Double specSynthLength;

    @Option(
            names = "--spec-synth-rates",
            paramLabel = "P0,P1,...",
            split = ",",
            description =
                    "Benchmarks only: each draft position's acceptance rate, as llama-server's (see --spec-synth-len).")
    double[] specSynthRates;

    @Option(
            names = "--template",
            paramLabel = "[MODEL=]NAME",
            description = "Chat template for every model (NAME), or for one model "
                    + "by id or alias (MODEL=NAME; repeatable), instead of choosing from the GGUF metadata.")
    List<String> templates = new ArrayList<>();

    @Option(
            names = "--chat-template",
            paramLabel = "NAME",
            description = "As llama-server: the chat template for every model, "
                    + "by name: one of ForgeLM's (forge plugins lists them) or one of llama-server's built-in names (llama2, mistral-v7, "
                    + "chatml, ...: rendered as llama-server renders them without --jinja); ForgeLM's wins a name both have. "
                    + "The same as --template NAME.")
    String chatTemplate;

    @Option(
            names = "--chat-template-file",
            paramLabel = "FILE",
            description =
                    "As llama-server: a Jinja chat template file every "
                            + "model uses instead of the one in its GGUF (rendered as transformers renders it, or by a family when it is that family's own).")
    Path chatTemplateFile;

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
            names = "--queue",
            defaultValue = "64",
            description = "Requests that may wait for a slot before new ones get 503 (default: ${DEFAULT-VALUE}).")
    int queue;

    @Mixin
    AccessOptions access = new AccessOptions();

    @Mixin
    GpuOptions gpu = new GpuOptions();

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

    @Option(
            names = "--shutdown-grace",
            paramLabel = "DURATION",
            defaultValue = "10s",
            description = {
                "On SIGTERM or Ctrl-C: how long running requests may take to finish before they are cancelled",
                "(default: ${DEFAULT-VALUE}; e.g. 30s, 500ms, 0). A second signal exits at once."
            })
    String shutdownGrace;

    /** True once a server was started by {@link #call()}: the process must keep running. */
    static boolean serving() {
        return serving;
    }

    @Override
    public Integer call() throws InterruptedException {
        Duration grace = duration("--shutdown-grace", shutdownGrace);
        Running running = start();
        serving = true;
        Shutdown shutdown = new Shutdown(running, grace);
        shutdown.install();
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(shutdown::closeOnce));
        running.server().join();
        return 0;
    }

    static Duration positive(String option, Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new ForgeException(option + ": must be more than 0: " + d.toMillis() + " ms");
        }
        return d;
    }

    /** {@code 10s}, {@code 500ms}, {@code 2m} or a number of seconds, the value of {@code option}. */
    static Duration duration(String option, String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        try {
            if (t.endsWith("ms")) {
                return Duration.ofMillis(
                        Long.parseLong(t.substring(0, t.length() - 2).strip()));
            }
            if (t.endsWith("s")) {
                return Duration.ofMillis(Math.round(
                        Double.parseDouble(t.substring(0, t.length() - 1).strip()) * 1000));
            }
            if (t.endsWith("m")) {
                return Duration.ofSeconds(Math.round(
                        Double.parseDouble(t.substring(0, t.length() - 1).strip()) * 60));
            }
            return Duration.ofMillis(Math.round(Double.parseDouble(t) * 1000));
        } catch (NumberFormatException e) {
            throw new ForgeException(option + ": not a duration such as 10s or 500ms: " + text);
        }
    }

    /**
     * Graceful shutdown on SIGTERM and SIGINT: stop taking work ({@code /health} and new requests
     * answer 503 while draining, as load balancers expect), let running requests finish within the
     * grace, then cancel what is left (each stream gets an error event), unload, and exit 0. A
     * second signal while draining exits at once. The JVM's own shutdown hooks cannot do this:
     * they run once, and a second signal during them is ignored.
     */
    static final class Shutdown {
        private static final Logger LOG = LoggerFactory.getLogger(Shutdown.class);
        private final Running running;
        private final Duration grace;
        private final AtomicBoolean started = new AtomicBoolean();
        private final AtomicBoolean closed = new AtomicBoolean();

        Shutdown(Running running, Duration grace) {
            this.running = running;
            this.grace = grace;
        }

        void install() {
            for (String name : new String[] {"TERM", "INT"}) {
                try {
                    Signals.handle(name, this::onSignal);
                } catch (IllegalArgumentException e) {
                    LOG.debug("cannot handle SIG{}: {}", name, e.getMessage());
                }
            }
        }

        private void onSignal(String name) {
            if (!started.compareAndSet(false, true)) {
                System.err.println("forge: second SIG" + name + ": exiting now");
                Runtime.getRuntime().halt(1);
            }
            Thread.ofPlatform().name("forge-shutdown").start(this::run);
        }

        private void run() {
            int code = 0;
            try {
                LOG.info("shutting down: waiting up to {} ms for running requests", grace.toMillis());
                int left = running.server().drain(grace);
                if (left > 0) {
                    LOG.warn("cancelling {} request(s) still running after the grace period", left);
                }
                closeOnce(); // engines first: their requests end with an error event while Jetty still writes
                LOG.info("stopped");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                code = 1;
            } catch (RuntimeException e) {
                LOG.error("error while shutting down", e);
                code = 1;
            }
            System.exit(code);
        }

        /** Closes what runs, once: after a signal's drain, or from the JVM's shutdown hook on any other exit. */
        void closeOnce() {
            if (closed.compareAndSet(false, true)) {
                running.close();
            }
        }
    }

    /** A {@code --chat-template-file}: UTF-8 text, read once at start. */
    static String readTemplate(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException | UncheckedIOException e) {
            throw new ForgeException("--chat-template-file " + file + ": cannot read it: " + e.getMessage());
        }
    }

    /** Starts everything and returns once the server listens and the models given are loaded. */
    public Running start() {
        ForgeRuntime runtime = ForgeRuntime.start(common.runtimeConfig().withSettings(gpu.settings()));
        ModelCatalog catalog = null;
        ForgeServer server = null;
        try {
            EngineConfig engine = engineConfig();
            String everyModel = "";
            Map<String, String> perModel = new LinkedHashMap<>();
            for (String t : templates) {
                int eq = t.indexOf('=');
                if (eq < 0) {
                    everyModel = t;
                } else if (eq == 0 || eq == t.length() - 1) {
                    throw new ForgeException("--template " + t + ": expected NAME or MODEL=NAME");
                } else {
                    perModel.put(t.substring(0, eq), t.substring(eq + 1));
                }
            }
            if (chatTemplate != null) {
                if (!everyModel.isEmpty() && !everyModel.equals(chatTemplate)) {
                    throw new ForgeException(
                            "--chat-template " + chatTemplate + " and --template " + everyModel + " disagree");
                }
                everyModel = chatTemplate;
            }
            ContextSizing.Policy contextPolicy = contextPolicy(engine);
            LOG.info("{} slot(s): {}", engine.slots(), contextPolicy.slotsReason());
            CatalogConfig.Builder config = CatalogConfig.builder(runtime.backend(), runtime.templates())
                    .engineConfig(engine)
                    .template(everyModel)
                    .contextPolicy(contextPolicy)
                    .mmap(mmap)
                    .fileSettle(positive("--model-file-settle", duration("--model-file-settle", modelFileSettle)))
                    .backendChoices(runtime.backends())
                    .draftModel(draftModel())
                    .synthetic(synthetic())
                    .lifecycle(lifecycle());
            if (chatTemplateFile != null) {
                config.templateSource(readTemplate(chatTemplateFile));
            }
            usePromptCache(config);
            perModel.forEach(config::modelTemplate);
            Path ownProjector = projectors(config);
            catalog = new ModelCatalog(config.build());
            List<ModelEntry> preload = new ArrayList<>();
            if (!models.isEmpty()) {
                for (int i = 0; i < models.size(); i++) {
                    preload.add(catalog.add(models.get(i), i == 0 ? aliases : List.of()));
                }
                addAdapters(catalog, preload.getFirst());
                if (ownProjector != null) {
                    catalog.registry().attachProjector(preload.getFirst(), ownProjector);
                }
                // -m serves what it names, as llama-server: only the folders named beside it are read too
                sources.register(catalog, false);
            } else {
                if (ownProjector != null) {
                    throw new ForgeException("--mmproj FILE names the projector of the model given with -m;"
                            + " without -m, give --mmproj MODEL=FILE, or keep it beside the model");
                }
                // Without -m: the user's models where they are (folders, Ollama, LM Studio, the HF cache)
                if (!lora.isEmpty() || !loraScaled.isEmpty()) {
                    throw new ForgeException("--lora and --lora-scaled name adapters of the model given with -m;"
                            + " without -m, adapters beside a model in a store are found with it");
                }
                List<ModelEntry> found = sources.register(catalog, true);
                if (found.isEmpty()) {
                    found = List.of(catalog.add(demoModel(sources.defaultFolder()), aliases));
                } else if (!aliases.isEmpty()) {
                    if (found.size() != 1) {
                        throw new ForgeException("--alias names one model: give it with -m, or use forge models alias"
                                + " (" + found.size() + " models were found)");
                    }
                    for (String a : aliases) {
                        catalog.alias(a, found.getFirst().id());
                    }
                }
                if (found.size() == 1) {
                    preload.addAll(found);
                }
            }
            preload.removeIf(e -> !e.available());
            for (String name : projectorModels) {
                if (catalog.find(name).isEmpty()) {
                    throw new ForgeException("--mmproj " + name + "=...: no model answers to '" + name + "'");
                }
            }
            for (String name : perModel.keySet()) {
                if (catalog.find(name).isEmpty()) {
                    throw new ForgeException(
                            "--template " + name + "=" + perModel.get(name) + ": no model answers to '" + name + "'");
                }
            }
            // Models named on the command line load now, like llama-server: /health is ready when
            // they are. They load on the catalog's loader thread while the server starts and listens
            // (its /health answers 503 "Loading model" meanwhile), so the two overlap.
            List<CompletableFuture<?>> loads = new ArrayList<>();
            for (ModelEntry e : preload) {
                loads.add(catalog.load(e));
            }
            server = ForgeServer.start(
                    access.apply(ServerConfig.of(host, port)),
                    catalog,
                    runtime.plugins().samplerStages(),
                    CompletableFuture.allOf(loads.toArray(CompletableFuture[]::new)));
            server.usePull(sources.hubPull());
            for (ModelEntry e : preload) {
                catalog.serve(e); // waits for its load; one that failed throws why, as before
            }
            System.err.printf(
                    "ForgeLM is serving %s on http://%s:%d/v1 (OpenAI-compatible)%n",
                    catalog.entries().stream().map(ModelEntry::id).toList(), host, server.port());
            return new Running(runtime, catalog, server);
        } catch (RuntimeException e) {
            if (server != null) {
                server.close();
            }
            if (catalog != null) {
                catalog.close();
            }
            runtime.close();
            throw e;
        }
    }

    /**
     * {@code --mmproj} and {@code --no-mmproj}: each {@code MODEL=FILE} becomes that model's
     * projector in {@code config}; a plain {@code FILE} (an existing file, whatever its name holds)
     * is the projector of the one model given with {@code -m}, returned for the caller to attach.
     *
     * @return the {@code -m} model's projector, or null
     */
    private Path projectors(CatalogConfig.Builder config) {
        config.foundProjectors(!noMmproj);
        Path own = null;
        for (String given : mmproj) {
            int eq = given.indexOf('=');
            if (Files.isRegularFile(Path.of(given)) || eq <= 0) {
                if (own != null || models.size() > 1) {
                    throw new ForgeException("--mmproj FILE names the projector of the one model given with -m;"
                            + " give --mmproj MODEL=FILE for each of several");
                }
                own = Path.of(given);
                if (!Files.isRegularFile(own)) {
                    throw new ForgeException("--mmproj " + given + ": multimodal projector file not found");
                }
            } else {
                Path file = Path.of(given.substring(eq + 1));
                if (!Files.isRegularFile(file)) {
                    throw new ForgeException("--mmproj " + given + ": multimodal projector file not found: " + file);
                }
                config.modelProjector(given.substring(0, eq), file);
                projectorModels.add(given.substring(0, eq));
            }
        }
        return own;
    }

    /**
     * {@code --lora} and {@code --lora-scaled}: adapters of the one model given with {@code -m}, as
     * llama-server serves one. An adapter of another base model stops the start, with the reason.
     */
    private void addAdapters(ModelCatalog catalog, ModelEntry model) {
        if (lora.isEmpty() && loraScaled.isEmpty()) {
            return;
        }
        if (models.size() != 1) {
            throw new ForgeException("--lora and --lora-scaled name adapters of the one model given with -m ("
                    + models.size() + " were given)");
        }
        for (Path file : lora) {
            catalog.registry().addAdapter(model, file, loraWithoutApply ? 0f : 1f);
        }
        for (String given : loraScaled) {
            int colon = given.lastIndexOf(':');
            float scale;
            try {
                scale = colon < 0 ? Float.NaN : Float.parseFloat(given.substring(colon + 1));
            } catch (NumberFormatException e) {
                scale = Float.NaN;
            }
            if (!Float.isFinite(scale)) {
                throw new ForgeException("--lora-scaled " + given + ": expected FILE:SCALE, SCALE a number");
            }
            catalog.registry().addAdapter(model, Path.of(given.substring(0, colon)), loraWithoutApply ? 0f : scale);
        }
    }

    /** {@code --models-ttl}, {@code --models-max}, {@code --models-memory} and {@code --models-load-wait}. */
    ModelLoader.Lifecycle lifecycle() {
        KeepAlive ttl = parse("--models-ttl", KeepAlive::parse, modelsTtl);
        long memory;
        if (modelsMemory.equalsIgnoreCase("auto")) {
            memory = UnloadPolicy.defaultMemory(totalMemory());
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
            throw new ParameterException(
                    spec.commandLine(), "--models-load-wait: a positive duration, got " + modelsLoadWait);
        }
        return new ModelLoader.Lifecycle(ttl, limits, wait);
    }

    /** {@code MemTotal} of {@code /proc/meminfo}; -1 when unknown. */
    static long totalMemory() {
        return meminfo("MemTotal:");
    }

    /** The host prompt cache of {@code --cache-ram}, kept in {@code --prompt-cache-dir} when given. */
    private void usePromptCache(CatalogConfig.Builder config) {
        if (cacheRamMib < -1) {
            throw new ParameterException(
                    spec.commandLine(), "--cache-ram: expected MiB, 0 (off) or -1 (no limit), got " + cacheRamMib);
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
                throw new ParameterException(
                        spec.commandLine(), "--prompt-cache-dir needs a prompt cache: --cache-ram is 0");
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

    /**
     * The profile's settings with every flag given on top of them.
     *
     * @throws picocli.CommandLine.ParameterException naming the flag, for settings that do not fit
     */
    EngineConfig engineConfig() {
        EngineProfile p;
        try {
            p = EngineProfile.named(profile);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--profile: " + e.getMessage());
        }
        KvCacheType kv = kvType != null ? parse("--kv-type", KvCacheType::parse, kvType) : null;
        if (cacheTypeK != null || cacheTypeV != null) {
            KvCacheType k = cacheTypeK != null ? parse("--cache-type-k", KvCacheType::parse, cacheTypeK) : null;
            KvCacheType v = cacheTypeV != null ? parse("--cache-type-v", KvCacheType::parse, cacheTypeV) : k;
            k = k != null ? k : v;
            if (k != v || (kv != null && kv != k)) {
                throw new ParameterException(
                        spec.commandLine(),
                        "ForgeLM uses one KV cache type for keys and values: "
                                + "--cache-type-k, --cache-type-v and --kv-type must agree (got " + k + ", " + v
                                + (kv != null ? ", " + kv : "") + ")");
            }
            kv = k;
        }
        kv = kv != null ? kv : p.kvCacheType();
        FlashAttention fa = flashAttention != null
                ? parse("--flash-attn", FlashAttention::parse, flashAttention)
                : p.flashAttention();
        int t = threads != null ? threads : Math.max(1, Runtime.getRuntime().availableProcessors());
        int slots = slots();
        try {
            return new EngineConfig(
                    slots,
                    contextSize != null ? contextSize : p.contextSize(),
                    batchSize != null ? batchSize : p.batchSize(),
                    ubatchSize != null ? ubatchSize : p.ubatchSize(),
                    t,
                    threadsBatch != null ? threadsBatch : t,
                    queue,
                    fa,
                    kv,
                    p.name(),
                    !noWarmup,
                    speculation(),
                    kvUnified());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** {@code --spec-type} and its sizes ({@code --model-draft} alone means {@code draft-simple}). */
    Speculation speculation() {
        String type = specType.equals("none") && draftModel != null ? "draft-simple" : specType;
        try {
            return switch (type) {
                case "none" -> Speculation.OFF;
                case "ngram-simple", "ngram" ->
                    new Speculation(specNgram, specDraftMax != null ? specDraftMax : specNgramMax, specDraftMin);
                case "draft-simple", "draft" -> {
                    if (draftModel == null) {
                        throw new ParameterException(
                                spec.commandLine(),
                                "--spec-type " + specType + " needs a draft model: --model-draft FILE");
                    }
                    yield Speculation.draftModel(
                            specDraftMax != null ? specDraftMax : Speculation.DEFAULT_MODEL_DRAFT_MAX,
                            specDraftMin,
                            specDraftPMin);
                }
                default ->
                    throw new ParameterException(
                            spec.commandLine(),
                            "--spec-type " + specType
                                    + " is not supported: ForgeLM drafts by n-gram lookup or a draft model (none,"
                                    + " ngram-simple or draft-simple)");
            };
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** {@code --model-draft} with {@code --gpu-layers-draft}, or null. */
    CatalogConfig.DraftModel draftModel() {
        if (draftModel == null) {
            return null;
        }
        if (speculation().type().equals("ngram-simple")) {
            throw new ParameterException(
                    spec.commandLine(), "--model-draft drafts with --spec-type draft-simple, not " + specType);
        }
        int layers = switch (draftGpuLayers.strip().toLowerCase(Locale.ROOT)) {
            case "auto" -> -1;
            case "all" -> Integer.MAX_VALUE;
            default -> {
                try {
                    int n = Integer.parseInt(draftGpuLayers.strip());
                    if (n < 0) {
                        throw new NumberFormatException();
                    }
                    yield n;
                } catch (NumberFormatException e) {
                    throw new ParameterException(
                            spec.commandLine(),
                            "--gpu-layers-draft must be a number of layers, auto or all: " + draftGpuLayers);
                }
            }
        };
        return new CatalogConfig.DraftModel(draftModel, layers);
    }

    /** {@code --spec-synth-len} / {@code --spec-synth-rates} (benchmarks only), against the drafts' maximum. */
    SyntheticAcceptance synthetic() {
        if (specSynthLength == null && specSynthRates == null) {
            return SyntheticAcceptance.OFF;
        }
        if (specSynthLength != null && specSynthRates != null) {
            throw new ParameterException(
                    spec.commandLine(), "--spec-synth-len and --spec-synth-rates are mutually exclusive");
        }
        int max = speculation().draftMax();
        try {
            SyntheticAcceptance s = specSynthLength != null
                    ? SyntheticAcceptance.length(specSynthLength, max)
                    : SyntheticAcceptance.rates(specSynthRates, max);
            LOG.warn(
                    "synthetic speculative acceptance is on for benchmarking (mean length {}): the output is not the"
                            + " model's",
                    s.meanLength());
            return s;
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** {@code -kvu} / {@code -no-kvu}: one KV pool for all slots, or a stream per slot (the default). */
    boolean kvUnified() {
        if (kvUnified && noKvUnified) {
            throw new ParameterException(spec.commandLine(), "--kv-unified and --no-kv-unified contradict each other");
        }
        return kvUnified;
    }

    /** {@code -np}: a number of slots, or {@code auto}. */
    int slots() {
        if (parallel.equalsIgnoreCase("auto")) {
            return DEFAULT_SLOTS;
        }
        try {
            int n = Integer.parseInt(parallel.strip());
            if (n < 1) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new ParameterException(
                    spec.commandLine(), "-np/--parallel: a positive number of slots or auto, got '" + parallel + "'");
        }
    }

    /**
     * How each model's context is sized: {@code -c}, or a profile other than {@code default}, gives
     * it; else each slot gets the model's training context, capped by the free memory.
     */
    ContextSizing.Policy contextPolicy(EngineConfig engine) {
        ContextSizing.Policy policy = contextSize != null || !engine.profile().equals(EngineProfile.DEFAULT.name())
                ? ContextSizing.Policy.fixed(engine.contextSize())
                : ContextSizing.Policy.auto(availableMemory());
        return policy.withSlotsReason(parallel.equalsIgnoreCase("auto") ? SLOTS_REASON : "-np " + engine.slots());
    }

    /** {@code MemAvailable} of {@code /proc/meminfo}: what the machine can give without swapping; -1 when unknown. */
    static long availableMemory() {
        return meminfo("MemAvailable:");
    }

    /** A line of {@code /proc/meminfo} in bytes; -1 when unknown. */
    private static long meminfo(String key) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith(key)) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            LOG.debug("cannot read {} of /proc/meminfo: {}", key, e.toString());
        }
        return -1;
    }

    /** {@code text} parsed by {@code parser}; a wrong spelling is a parameter error naming {@code flag}. */
    private <T> T parse(String flag, Function<String, T> parser, String text) {
        try {
            return parser.apply(text);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), flag + ": " + e.getMessage());
        }
    }

    /** Generates the demo model on first run: random weights, so its text is noise. */
    static Path demoModel(Path folder) {
        Path file = folder.resolve("forge-demo.gguf");
        if (Files.isRegularFile(file)) {
            return file;
        }
        try {
            Files.createDirectories(folder);
        } catch (IOException e) {
            throw new ForgeException("cannot create " + folder + ": " + e.getMessage(), e);
        }
        LOG.info(
                "no models in {}: generating a small demo model at {} (random weights: its text is noise; "
                        + "serve a real GGUF with --model FILE)",
                folder,
                file);
        SynthSpec spec = SynthSpec.tiny("qwen").withShape(256, 4, 8, 2, 768).withName("forge-demo");
        Path tmp = folder.resolve("forge-demo.gguf.part");
        SyntheticModels.write(spec, tmp);
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new ForgeException("cannot write " + file + ": " + e.getMessage(), e);
        }
        return file;
    }

    /** A started server and what it runs on; closing it stops everything in order. */
    public record Running(ForgeRuntime runtime, ModelCatalog catalog, ForgeServer server) implements AutoCloseable {
        public int port() {
            return server.port();
        }

        /** Stops everything in order: the engines first, so that their requests end with an error event Jetty still writes. */
        @Override
        public void close() {
            catalog.close();
            server.close();
            runtime.close();
        }
    }
}
