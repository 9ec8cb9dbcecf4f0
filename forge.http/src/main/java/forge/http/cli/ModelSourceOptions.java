package forge.http.cli;

import forge.api.ForgeException;
import forge.api.UserHome;
import forge.http.hub.HubPull;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.ModelSource;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;

/**
 * Where the user's models are, for {@code forge serve} and {@code forge models}: the folders, and
 * Ollama's, LM Studio's and the Hugging Face hub's stores, each read in place and each switchable
 * off. Every {@code ~} is {@code $HOME} of {@link #environment} (not Java's {@code user.home}).
 */
final class ModelSourceOptions {

    private static final Logger LOG = LoggerFactory.getLogger(ModelSourceOptions.class);

    @Option(
            names = "--models-dir",
            paramLabel = "DIR",
            description = "A folder of .gguf files, searched below (repeatable; default: ~/.forge/models).")
    List<Path> modelsDirs = new ArrayList<>();

    @Option(names = "--no-models-dir", description = "Do not read ~/.forge/models (the default folder).")
    boolean noModelsDir;

    @Option(names = "--no-ollama", description = "Do not read Ollama's models ($OLLAMA_MODELS or ~/.ollama/models).")
    boolean noOllama;

    @Option(
            names = "--no-lmstudio",
            description = "Do not read LM Studio's models (~/.lmstudio/models, ~/.cache/lm-studio/models).")
    boolean noLmStudio;

    @Option(
            names = "--no-hf-cache",
            description =
                    "Do not read the Hugging Face hub cache ($HF_HUB_CACHE, $HF_HOME/hub or ~/.cache/huggingface/hub).")
    boolean noHfCache;

    @Option(
            names = "--hf-endpoint",
            paramLabel = "URL",
            description = "The Hugging Face hub or a mirror to pull from (default: $HF_ENDPOINT, else the public hub).")
    String hfEndpoint;

    /** The process's environment; tests give another (a temporary HOME) since a JVM cannot change its own. */
    Map<String, String> environment = System.getenv();

    Path home() {
        return UserHome.of(environment);
    }

    /** {@code ~/.forge}: {@code forge.user.home} when set (tests), else {@code $HOME/.forge}. */
    Path forgeHome() {
        String configured = System.getProperty("forge.user.home");
        return configured != null && !configured.isBlank() ? Path.of(configured) : home().resolve(".forge");
    }

    /** The folder {@code forge pull} and the demo model write to: the first {@code --models-dir}, else {@code ~/.forge/models}. */
    Path defaultFolder() {
        return modelsDirs.isEmpty() ? forgeHome().resolve("models") : modelsDirs.getFirst();
    }

    /** The Hugging Face hub cache: {@code $HF_HUB_CACHE}, else {@code $HF_HOME/hub}, else {@code ~/.cache/huggingface/hub}. */
    Path hfHub() {
        String hub = environment.get("HF_HUB_CACHE");
        if (hub != null && !hub.isBlank()) {
            return UserHome.expand(hub, home());
        }
        String hfHome = environment.get("HF_HOME");
        if (hfHome != null && !hfHome.isBlank()) {
            return UserHome.expand(hfHome, home()).resolve("hub");
        }
        return home().resolve(".cache/huggingface/hub");
    }

    /** Pulls from {@code --hf-endpoint} ({@code $HF_ENDPOINT}, else the public hub) into {@link #hfHub}, with {@code $HF_TOKEN}. */
    HubPull hubPull() {
        String endpoint = hfEndpoint != null ? hfEndpoint : environment.getOrDefault("HF_ENDPOINT", "");
        if (endpoint.isBlank()) {
            endpoint = HubPull.DEFAULT_ENDPOINT;
        }
        String token = environment.getOrDefault("HF_TOKEN", environment.get("HUGGING_FACE_HUB_TOKEN"));
        try {
            return new HubPull(URI.create(endpoint), token, hfHub());
        } catch (IllegalArgumentException e) {
            throw new ForgeException("--hf-endpoint: not a URL: " + endpoint);
        }
    }

    /** Ollama's store: {@code $OLLAMA_MODELS}, else {@code ~/.ollama/models}. */
    Path ollama() {
        String dir = environment.get("OLLAMA_MODELS");
        return dir != null && !dir.isBlank() ? UserHome.expand(dir, home()) : home().resolve(".ollama/models");
    }

    /**
     * The sources in the order their ids win: folders, Ollama, LM Studio, the HF cache. With
     * {@code withDefaults} false (models given with {@code -m}), only the folders named.
     */
    List<ModelSource> sources(boolean withDefaults) {
        List<ModelSource> sources = new ArrayList<>();
        for (Path dir : modelsDirs) {
            sources.add(new ModelSource.Folder(UserHome.expand(dir.toString(), home())));
        }
        if (!withDefaults) {
            return sources;
        }
        if (modelsDirs.isEmpty() && !noModelsDir) {
            sources.add(new ModelSource.Folder(forgeHome().resolve("models")));
        }
        if (!noOllama) {
            sources.add(new ModelSource.Ollama(ollama()));
        }
        if (!noLmStudio) {
            sources.add(new ModelSource.LmStudio(
                    List.of(home().resolve(".lmstudio/models"), home().resolve(".cache/lm-studio/models"))));
        }
        if (!noHfCache) {
            sources.add(new ModelSource.HfCache(hfHub()));
        }
        return sources;
    }

    /** Registers every source's models, then the aliases of {@code ~/.forge/models.json}. */
    List<ModelEntry> register(ModelCatalog catalog, boolean withDefaults) {
        List<ModelEntry> found = new ArrayList<>();
        for (ModelSource s : sources(withDefaults)) {
            found.addAll(catalog.addSource(s));
        }
        ModelsFile file = ModelsFile.read(forgeHome().resolve("models.json"));
        file.aliases().forEach((alias, target) -> {
            try {
                catalog.alias(alias, target);
            } catch (ForgeException e) {
                LOG.warn("{}: {}", file.path(), e.getMessage());
            }
        });
        return found;
    }
}
