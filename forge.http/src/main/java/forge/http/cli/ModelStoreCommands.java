package forge.http.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import forge.api.ForgeException;
import forge.http.hub.HubPull;
import forge.runtime.ForgeRuntime;
import forge.runtime.catalog.CatalogConfig;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code forge models list|alias|rm|pull|load|unload}: the user's models where they are, the
 * catalog's own file, pulls from a Hugging Face hub, and a running server's loads.
 */
final class ModelStoreCommands {

    private ModelStoreCommands() {}

    /** The catalog {@code forge serve} without {@code -m} would have: every source registered, nothing loaded. */
    record Offline(ForgeRuntime runtime, ModelCatalog catalog) implements AutoCloseable {
        static Offline open(CommonOptions common, ModelSourceOptions sources) {
            ForgeRuntime runtime = ForgeRuntime.start(common.runtimeConfig());
            try {
                ModelCatalog catalog = new ModelCatalog(CatalogConfig.builder(runtime.backend(), runtime.templates())
                        .build());
                sources.register(catalog, true);
                return new Offline(runtime, catalog);
            } catch (RuntimeException e) {
                runtime.close();
                throw e;
            }
        }

        @Override
        public void close() {
            catalog.close();
            runtime.close();
        }
    }

    /**
     * A {@code forge models} subcommand over the user's models: the plugins and backend it starts
     * with, the model sources it reads, and where it prints.
     */
    abstract static class CatalogCommand implements Callable<Integer> {
        @Mixin
        CommonOptions common = new CommonOptions();

        @Mixin
        ModelSourceOptions sources = new ModelSourceOptions();

        @Spec
        CommandSpec spec;

        /** The catalog of every source, nothing loaded: the caller closes it. */
        Offline offline() {
            return Offline.open(common, sources);
        }

        /** Where the command prints: picocli's out, which a test may replace. */
        PrintWriter out() {
            return spec.commandLine().getOut();
        }
    }

    static String size(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }

    /** {@code forge models list}: every model of every source, with its state or why it is unavailable. */
    @Command(
            name = "list",
            aliases = "ls",
            mixinStandardHelpOptions = true,
            description = {
                "List the models forge serve would serve: ~/.forge/models (or --models-dir), Ollama's, LM Studio's and the",
                "Hugging Face cache's, each under its id, with its size, template and source, or why it cannot be served."
            })
    static final class List_ extends CatalogCommand {
        @Override
        public Integer call() {
            PrintWriter out = out();
            try (Offline o = offline()) {
                List<ModelEntry> entries = o.catalog().entries();
                int width = Math.max(
                        8, entries.stream().mapToInt(e -> e.id().length()).max().orElse(0));
                out.printf("%-" + width + "s  %-8s  %10s  %-10s  %s%n", "ID", "SOURCE", "SIZE", "TEMPLATE", "PATH");
                for (ModelEntry e : entries) {
                    out.printf(
                            "%-" + width + "s  %-8s  %10s  %-10s  %s%n",
                            e.id(),
                            e.source(),
                            size(e.fileBytes()),
                            e.templateSelection().map(t -> t.variant()).orElse("-"),
                            e.descriptor().path());
                    for (String alias : e.descriptor().aliases()) {
                        out.printf("  alias %s%n", alias);
                    }
                    e.reason().ifPresent(r -> out.printf("  UNAVAILABLE: %s%n", r));
                }
                if (entries.isEmpty()) {
                    out.println("no models found (forge pull org/repo:QUANT fetches one)");
                }
            }
            out.flush();
            return 0;
        }
    }

    /** {@code forge models alias NAME MODEL}: another name for a model, kept in {@code ~/.forge/models.json}. */
    @Command(
            name = "alias",
            mixinStandardHelpOptions = true,
            description = {
                "Give a model another name, kept in ~/.forge/models.json (every alias is also an id in /v1/models).",
                "With --remove, take a name away."
            })
    static final class Alias extends CatalogCommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String alias;

        @Parameters(
                index = "1",
                arity = "0..1",
                paramLabel = "MODEL",
                description = "The model's id (or another alias).")
        String target;

        @Option(names = "--remove", description = "Remove the alias NAME.")
        boolean remove;

        @Override
        public Integer call() {
            Path file = sources.forgeHome().resolve("models.json");
            ModelsFile models = ModelsFile.read(file);
            if (remove) {
                if (!models.aliases().containsKey(alias)) {
                    throw new ForgeException("no alias '" + alias + "' in " + file);
                }
                models.with(alias, "").write();
                out().printf("removed alias %s%n", alias);
            } else {
                if (target == null) {
                    throw new ForgeException("forge models alias NAME MODEL: which model should " + alias + " name?");
                }
                try (Offline o = offline()) {
                    ModelEntry e = o.catalog()
                            .find(target)
                            .orElseThrow(() -> new ForgeException(
                                    "no model answers to '" + target + "' (forge models list shows them)"));
                    o.catalog().find(alias).filter(other -> other != e).ifPresent(other -> {
                        throw new ForgeException("'" + alias + "' already names " + other.id());
                    });
                    models.with(alias, e.id()).write();
                    out().printf("%s -> %s%n", alias, e.id());
                }
            }
            out().flush();
            return 0;
        }
    }

    /**
     * {@code forge models rm MODEL}: deletes a model ForgeLM's own folders or the Hugging Face
     * cache hold; another tool's store (Ollama, LM Studio) is that tool's to change.
     */
    @Command(
            name = "rm",
            mixinStandardHelpOptions = true,
            description = {
                "Delete a model from ~/.forge/models (or --models-dir) or the Hugging Face cache, with its aliases.",
                "Ollama's and LM Studio's models are theirs: remove them there (ollama rm, LM Studio's My Models)."
            })
    static final class Rm extends CatalogCommand {
        @Parameters(paramLabel = "MODEL")
        String model;

        @Override
        public Integer call() throws IOException {
            PrintWriter out = out();
            try (Offline o = offline()) {
                ModelEntry e = o.catalog()
                        .find(model)
                        .orElseThrow(() -> new ForgeException("no model answers to '" + model + "'"));
                switch (e.source()) {
                    case "folder" -> {
                        for (Path p : e.parts()) {
                            Files.deleteIfExists(p);
                            out.printf("deleted %s%n", p);
                        }
                    }
                    case "hf" -> removeFromHubCache(e, out);
                    case "ollama" ->
                        throw new ForgeException(e.id() + " is Ollama's: remove it with `ollama rm " + e.id() + "`");
                    case "lmstudio" -> throw new ForgeException(e.id() + " is LM Studio's: remove it in LM Studio");
                    default ->
                        throw new ForgeException(e.id() + " was given on the command line: delete the file yourself");
                }
                ModelsFile file = ModelsFile.read(sources.forgeHome().resolve("models.json"));
                for (var alias : file.aliases().entrySet()) {
                    if (e.descriptor().answersTo(alias.getValue())) {
                        file = file.with(alias.getKey(), "");
                        out.printf("removed alias %s%n", alias.getKey());
                    }
                }
                file.write();
            }
            out.flush();
            return 0;
        }

        /** The snapshot links, and each blob no other snapshot links to, as {@code huggingface-cli delete-cache} does. */
        private static void removeFromHubCache(ModelEntry e, PrintWriter out) throws IOException {
            for (Path link : e.parts()) {
                Path blob = link.toRealPath();
                Files.delete(link);
                out.printf("deleted %s%n", link);
                Path repo = blob.getParent().getParent();
                Set<Path> used = new HashSet<>();
                try (var walk = Files.walk(repo.resolve("snapshots"))) {
                    for (Path p : walk.filter(Files::isSymbolicLink).toList()) {
                        try {
                            used.add(p.toRealPath());
                        } catch (IOException dangling) {
                            // a link to a blob already gone
                        }
                    }
                }
                if (!used.contains(blob)) {
                    Files.deleteIfExists(blob);
                    out.printf("deleted %s%n", blob);
                }
            }
        }
    }

    /** {@code forge pull} / {@code forge models pull}: a GGUF model from a Hugging Face repository into the hub cache. */
    @Command(
            name = "pull",
            mixinStandardHelpOptions = true,
            description = {
                "Download a GGUF model from a Hugging Face repository into the Hugging Face cache (where forge serve, llama.cpp",
                "and huggingface_hub find it): org/repo (Q4_K_M), org/repo:QUANT (by tag, every part of a split model) or",
                "org/repo/file.gguf. Resumes an interrupted download; checks the sha256 the hub gives. HF_TOKEN is sent",
                "for gated repositories; --hf-endpoint or HF_ENDPOINT names a mirror. The repository's multimodal projector",
                "(mmproj) that goes with the model comes too, unless --no-mmproj."
            })
    static final class Pull implements Callable<Integer> {
        @Mixin
        ModelSourceOptions sources = new ModelSourceOptions();

        @Parameters(paramLabel = "REPO[:QUANT]|REPO/FILE.gguf")
        String target;

        @Option(
                names = {"--no-mmproj", "--no-mmproj-auto"},
                description =
                        "Do not also download the repository's multimodal projector (the mmproj GGUF that goes with the model, as llama-server's --mmproj-auto picks it).")
        boolean noMmproj;

        @Spec
        CommandSpec spec;

        /** Whether to draw a bar: only on a terminal; a log or a pipe gets a line per tenth. */
        boolean terminal = System.console() != null && System.console().isTerminal();

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            HubPull pull = sources.hubPull();
            int[] lastTenth = {-1};
            String[] lastStatus = {""};
            HubPull.Result r = pull.pull(HubPull.Target.parse(target), !noMmproj, p -> {
                if (p.total() > 0 && p.status().startsWith("pulling ")) {
                    int percent = (int) (p.completed() * 100 / p.total());
                    if (terminal) {
                        int filled = percent / 4;
                        out.printf(
                                "\r%s [%s%s] %3d%% %s/%s",
                                p.status(),
                                "#".repeat(filled),
                                " ".repeat(25 - filled),
                                percent,
                                size(p.completed()),
                                size(p.total()));
                    } else if (percent / 10 != lastTenth[0] || !p.status().equals(lastStatus[0])) {
                        out.printf("%s: %d%% (%s of %s)%n", p.status(), percent, size(p.completed()), size(p.total()));
                    }
                    lastTenth[0] = percent / 10;
                } else {
                    out.printf("%s%s%n", terminal && lastTenth[0] >= 0 ? "\n" : "", p.status());
                    lastTenth[0] = -1;
                }
                lastStatus[0] = p.status();
                out.flush();
            });
            out.printf("pulled %s into %s: serve it as %s%n", target, pull.repoDir(r.repo()), r.id());
            r.projector()
                    .ifPresent(p -> out.printf(
                            "with its multimodal projector %s (served with the model, not as one)%n", p.getFileName()));
            out.flush();
            return 0;
        }
    }

    /** A running server's {@code POST /models/load} or {@code /models/unload}. */
    abstract static class ServerCall implements Callable<Integer> {
        @Option(
                names = "--url",
                defaultValue = "http://127.0.0.1:8080",
                description = "The running server (default: ${DEFAULT-VALUE}).")
        String url;

        @Option(
                names = "--api-key",
                paramLabel = "KEY",
                description = "Its API key, when it has one (default: $FORGE_API_KEY).")
        String apiKey = System.getenv("FORGE_API_KEY");

        @Parameters(paramLabel = "MODEL")
        String model;

        @Spec
        CommandSpec spec;

        abstract String route();

        @Override
        public Integer call() throws IOException, InterruptedException {
            String body =
                    new ObjectMapper().createObjectNode().put("model", model).toString();
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url.replaceAll("/+$", "") + route()))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body));
            if (apiKey != null && !apiKey.isBlank()) {
                b.header("Authorization", "Bearer " + apiKey);
            }
            HttpResponse<String> r;
            try (HttpClient client = HttpClient.newHttpClient()) {
                r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                throw new ForgeException(
                        "cannot reach the server at " + url + " (is forge serve running?): " + e.getMessage(), e);
            }
            PrintWriter out = spec.commandLine().getOut();
            out.println(r.body());
            out.flush();
            return r.statusCode() == 200 ? 0 : 1;
        }
    }

    @Command(
            name = "load",
            mixinStandardHelpOptions = true,
            description = "Load a model in a running forge serve (POST /models/load).")
    static final class Load extends ServerCall {
        @Override
        String route() {
            return "/models/load";
        }
    }

    @Command(
            name = "unload",
            mixinStandardHelpOptions = true,
            description = {
                "Unload a model from a running forge serve (POST /models/unload); one in use unloads when its requests end."
            })
    static final class Unload extends ServerCall {
        @Override
        String route() {
            return "/models/unload";
        }
    }
}
