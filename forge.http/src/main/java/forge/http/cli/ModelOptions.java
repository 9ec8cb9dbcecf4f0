package forge.http.cli;

import forge.api.ForgeException;
import forge.lib.gguf.synth.SynthSpec;
import forge.lib.gguf.synth.SyntheticModels;
import forge.runtime.catalog.CatalogConfig;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;

/**
 * {@code forge serve}'s models: the files given with {@code -m}, their aliases, LoRA adapters
 * and multimodal projectors, and what is served without {@code -m}.
 */
final class ModelOptions {

    private static final Logger LOG = LoggerFactory.getLogger(ServeCommand.class);

    @Option(
            names = {"-m", "--model"},
            paramLabel = "FILE",
            description = "A GGUF model to serve (repeatable).")
    List<Path> files = new ArrayList<>();

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

    @Option(
            names = "--lora-init-without-apply",
            description = "Load the --lora adapters at scale 0: requests apply them with lora, or POST /lora-adapters.")
    boolean loraWithoutApply;

    @Option(
            names = {"-a", "--alias"},
            paramLabel = "NAME",
            description = "Another name for the (first) model (repeatable).")
    List<String> aliases = new ArrayList<>();

    /** The models {@code --mmproj MODEL=FILE} names: each must answer once the catalog is read. */
    private final List<String> projectorModels = new ArrayList<>();

    /**
     * Registers the models to serve in {@code catalog}: those given with {@code -m} (with their
     * adapters, and {@code ownProjector}, from {@link #projectors}) and the folders named beside
     * them; without {@code -m}, the user's models where they are, or the demo model when there are
     * none.
     *
     * @return the models to load at start: those given with {@code -m}, or the one model found
     */
    List<ModelEntry> register(ModelCatalog catalog, Path ownProjector, ModelSourceOptions sources) {
        List<ModelEntry> preload = new ArrayList<>();
        if (!files.isEmpty()) {
            for (int i = 0; i < files.size(); i++) {
                preload.add(catalog.add(files.get(i), i == 0 ? aliases : List.of()));
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
        return preload;
    }

    /**
     * {@code --mmproj} and {@code --no-mmproj}: each {@code MODEL=FILE} becomes that model's
     * projector in {@code config}; a plain {@code FILE} (an existing file, whatever its name holds)
     * is the projector of the one model given with {@code -m}, returned for the caller to attach.
     *
     * @return the {@code -m} model's projector, or null
     */
    Path projectors(CatalogConfig.Builder config) {
        config.foundProjectors(!noMmproj);
        Path own = null;
        for (String given : mmproj) {
            int eq = given.indexOf('=');
            if (Files.isRegularFile(Path.of(given)) || eq <= 0) {
                if (own != null || files.size() > 1) {
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
        if (files.size() != 1) {
            throw new ForgeException("--lora and --lora-scaled name adapters of the one model given with -m ("
                    + files.size() + " were given)");
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
}
