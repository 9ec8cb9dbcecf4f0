package forge.http.cli;

import forge.http.server.ForgeServer;
import forge.http.server.ServerConfig;
import forge.runtime.ForgeRuntime;
import forge.runtime.catalog.CatalogConfig;
import forge.runtime.catalog.ContextSizing;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.engine.EngineConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

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

    @Mixin
    CommonOptions common = new CommonOptions();

    @Mixin
    ModelOptions models = new ModelOptions();

    @Mixin
    ModelSourceOptions sources = new ModelSourceOptions();

    @Mixin
    LoadOptions load = new LoadOptions();

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

    @Mixin
    EngineOptions engine = new EngineOptions();

    @Mixin
    SpeculationOptions speculation = new SpeculationOptions();

    @Mixin
    TemplateOptions templates = new TemplateOptions();

    @Mixin
    AccessOptions access = new AccessOptions();

    @Mixin
    GpuOptions gpu = new GpuOptions();

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
        Duration grace = Flags.duration("--shutdown-grace", shutdownGrace);
        Running running = start();
        serving = true;
        Shutdown shutdown = new Shutdown(running, grace);
        shutdown.install();
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(shutdown::closeOnce));
        running.server().join();
        return 0;
    }

    /** Starts everything and returns once the server listens and the models given are loaded. */
    public Running start() {
        ForgeRuntime runtime = ForgeRuntime.start(common.runtimeConfig().withSettings(gpu.settings()));
        ModelCatalog catalog = null;
        ForgeServer server = null;
        try {
            EngineConfig engineConfig = engineConfig();
            CatalogConfig.Builder config = CatalogConfig.builder(runtime.backend(), runtime.templates());
            templates.apply(config);
            ContextSizing.Policy contextPolicy = engine.contextPolicy(engineConfig);
            LOG.info("{} slot(s): {}", engineConfig.slots(), contextPolicy.slotsReason());
            config.engineConfig(engineConfig)
                    .contextPolicy(contextPolicy)
                    .backendChoices(runtime.backends())
                    .draftModel(speculation.draftModel())
                    .synthetic(speculation.synthetic());
            load.apply(config);
            Path ownProjector = models.projectors(config);
            catalog = new ModelCatalog(config.build());
            List<ModelEntry> preload = models.register(catalog, ownProjector, sources);
            templates.check(catalog);
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

    /** The engine's settings: the profile, the flags on top of it, and the speculation. */
    EngineConfig engineConfig() {
        return engine.engineConfig(speculation.speculation());
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
