package forge.runtime.catalog;

import forge.api.ForgeException;
import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import forge.api.template.TemplateContext;
import forge.lib.gguf.GgufReader;
import forge.lib.gguf.GgufValue;
import forge.lib.gguf.LoraFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The catalog's registry: which model files it answers for, by canonical id and alias, from
 * which source, with which chat template (the package documentation has the sources and the
 * rules). It reads only GGUF headers, never weights; what loads and unloads them is the
 * {@link ModelLoader}.
 *
 * <p>Only files registered here (from {@code --model} and the sources) can ever be loaded: a
 * request names a model by id, never by path.
 */
public final class ModelRegistry {

    private static final Logger LOG = LoggerFactory.getLogger(ModelRegistry.class);

    private final CatalogConfig config;
    private final List<ModelEntry> entries = new CopyOnWriteArrayList<>();

    /** An empty registry whose models {@code config}'s backend checks and whose templates it chooses. */
    public ModelRegistry(CatalogConfig config) {
        this.config = config;
    }

    /** The canonical id of a model file: its name without {@code .gguf}. */
    public static String idOf(Path file) {
        return ModelSource.stemOf(file);
    }

    /**
     * Registers a GGUF file ({@code -m}) under its canonical id and the given aliases. Reads its
     * metadata (not its weights) and chooses its chat template; a file that cannot be served is
     * registered as unavailable with the reason.
     *
     * @throws ForgeException when the file does not exist, or a name is taken
     */
    public ModelEntry add(Path file, List<String> aliases) {
        return add(file, aliases, "");
    }

    /**
     * Registers a GGUF file like {@link #add(Path, List)}, with the chat template named for this
     * model (per-model configuration), which wins over the catalog's own.
     *
     * @param template the template this model uses; empty for the catalog's choice
     */
    public ModelEntry add(Path file, List<String> aliases, String template) {
        Path path = file.toAbsolutePath().normalize();
        if (!Files.isRegularFile(path)) {
            throw new ForgeException("model file not found: " + path);
        }
        ModelSource.Found found = new ModelSource.Given(List.of(path)).scan().getFirst();
        return register(found, aliases, template)
                .orElseThrow(() -> new ForgeException(path
                        + " is not a model (a multimodal projector or a LoRA adapter: give an adapter with --lora)"));
    }

    /**
     * Serves {@code entry} with the multimodal projector in {@code file} ({@code --mmproj}), in
     * place of one found beside it, from its next load on. Whether it fits the model (its
     * embedding width) is checked when both load: a projector that does not fit fails the load
     * with llama.cpp's reason, and the model is then listed as failed with it.
     *
     * @throws ForgeException when the file is missing
     */
    public void attachProjector(ModelEntry entry, Path file) {
        Path path = file.toAbsolutePath().normalize();
        if (!Files.isRegularFile(path)) {
            throw new ForgeException("multimodal projector file not found: " + path);
        }
        entry.projector(path);
        LOG.info("model {}: multimodal projector {} (given)", entry.id(), path);
    }

    /**
     * Gives {@code entry} the LoRA adapter in {@code file} ({@code --lora}), served on its own under
     * the file's stem, applied at {@code scale} to the requests that name no {@code lora}. The
     * adapter's header is checked against the model's ({@link LoraFiles#mismatch}), so an adapter
     * of another base model is refused here, with the reason, before anything is loaded.
     *
     * @throws ForgeException when the file is missing, is no LoRA adapter of this model, or its id is taken
     */
    public AdapterFile addAdapter(ModelEntry entry, Path file, float scale) {
        Path path = file.toAbsolutePath().normalize();
        if (!Files.isRegularFile(path)) {
            throw new ForgeException("LoRA adapter file not found: " + path);
        }
        AdapterFile adapter = new AdapterFile(idOf(path), path, "flag");
        mismatch(path, entry).ifPresent(why -> {
            throw new ForgeException("the LoRA adapter " + path + " does not fit the model " + entry.id() + ": " + why);
        });
        attach(entry, adapter, scale);
        return adapter;
    }

    /** Why the adapter in {@code file} cannot be applied to {@code entry}'s model; empty when it can. */
    private static Optional<String> mismatch(Path file, ModelEntry entry) {
        try {
            return LoraFiles.mismatch(
                    GgufReader.read(file), GgufReader.read(entry.descriptor().path()));
        } catch (RuntimeException e) {
            return Optional.of("it cannot be read: " + e.getMessage());
        }
    }

    private void attach(ModelEntry entry, AdapterFile adapter, float scale) {
        if (find(adapter.id()).isPresent()) {
            throw new ForgeException("the LoRA adapter " + adapter.path() + " would be served as '" + adapter.id()
                    + "', which already names a model");
        }
        entry.addAdapter(adapter, scale);
        LOG.info("LoRA adapter {} [{}] ({}) of model {}", adapter.id(), adapter.source(), adapter.path(), entry.id());
    }

    /**
     * Attaches an adapter a source found to the first model registered from the same folder that
     * it fits (a models folder, a Hugging Face snapshot), under the id the source gave the file; an
     * adapter that fits none is logged and left out. Found beside a model, it is not applied to
     * requests that name no {@code lora} (scale 0) until {@code POST /lora-adapters} says so.
     */
    private void attachFound(ModelSource.Found found) {
        for (ModelEntry entry : entries) {
            if (!entry.descriptor().path().getParent().equals(found.path().getParent())
                    || entry.adapters().stream().anyMatch(a -> a.path().equals(found.path()))) {
                continue;
            }
            Optional<String> why = mismatch(found.path(), entry);
            if (why.isEmpty()) {
                try {
                    attach(entry, new AdapterFile(found.id(), found.path(), found.source()), 0f);
                } catch (ForgeException e) {
                    LOG.warn("{}: skipping the LoRA adapter {}: {}", found.source(), found.path(), e.getMessage());
                }
                return;
            }
            LOG.debug(
                    "{}: the LoRA adapter {} does not fit {}: {}", found.source(), found.path(), entry.id(), why.get());
        }
        LOG.warn("{}: the LoRA adapter {} fits no model beside it", found.source(), found.path());
    }

    /** Registers every model of a folder ({@code --models-dir}); the same as {@link #addSource} of a {@link ModelSource.Folder}. */
    public List<ModelEntry> addFolder(Path folder) {
        return addSource(new ModelSource.Folder(folder));
    }

    /**
     * Registers every model a source finds. A name already taken (by an earlier source) is
     * logged and that model skipped: the first source keeps it. A model already registered from
     * the same file is left as it is, so a source can be scanned again for what is new.
     */
    public List<ModelEntry> addSource(ModelSource source) {
        List<ModelEntry> added = new ArrayList<>();
        List<ModelSource.Found> adapters = new ArrayList<>();
        for (ModelSource.Found f : source.scan()) {
            if (f.problem().isEmpty() && isAdapter(f.path())) {
                adapters.add(f); // attached below, once the models beside it are registered
                continue;
            }
            if (findExact(f.id())
                    .filter(e -> e.descriptor().path().equals(f.path()))
                    .isPresent()) {
                continue; // registered by an earlier scan of this source (a refresh after a pull)
            }
            try {
                register(f, List.of(), "").ifPresent(added::add);
            } catch (ForgeException e) {
                LOG.warn("{}: skipping {} ({}): {}", source.name(), f.id(), f.path(), e.getMessage());
            }
        }
        adapters.forEach(this::attachFound);
        return added;
    }

    /**
     * Gives the model answering to {@code target} another name ({@code ~/.forge/models.json}).
     *
     * @throws ForgeException when no model answers to {@code target} or the alias is taken
     */
    public void alias(String alias, String target) {
        ModelEntry entry = find(target)
                .orElseThrow(() -> new ForgeException("alias " + alias + ": no model answers to '" + target + "'"));
        if (entry.descriptor().answersTo(alias)) {
            return;
        }
        if (findExact(alias).isPresent()) {
            throw new ForgeException("alias " + alias + ": '" + alias + "' already names "
                    + findExact(alias).get().id());
        }
        ModelDescriptor d = entry.descriptor();
        List<String> aliases = new ArrayList<>(d.aliases());
        aliases.add(alias);
        entry.descriptor(new ModelDescriptor(d.id(), aliases, d.path(), d.metadata()));
    }

    /**
     * Registers what a source found: reads the GGUF header, checks that the file is whole and
     * that the backend knows its architecture, chooses the template and checks that it parses.
     * Anything wrong makes the entry unavailable with the reason; a projector is not registered.
     */
    private Optional<ModelEntry> register(ModelSource.Found found, List<String> aliases, String template) {
        Path path = found.path();
        String problem = found.problem();
        ModelMetadata metadata = new ModelMetadata(Map.of(), Map.of());
        if (problem.isEmpty()) {
            try {
                // the reader checks every tensor against the file's end: a cut-off download fails here
                metadata = withTemplate(
                        GgufReader.read(path).metadata(),
                        config.templateSource().orElse(null));
            } catch (RuntimeException e) {
                String why = String.valueOf(e.getMessage());
                why = why.startsWith(path + ": ")
                        ? why.substring(path.toString().length() + 2)
                        : why;
                problem = why.startsWith("truncated") ? why : "not a readable GGUF file: " + why;
            }
        }
        if (LoraFiles.isAdapter(metadata)) {
            LOG.debug("{}: {} is a LoRA adapter, not a model", found.source(), path);
            return Optional.empty();
        }
        if (metadata.architecture().filter("clip"::equals).isPresent()) {
            LOG.debug("{}: {} is a multimodal projector, not a model", found.source(), path);
            return Optional.empty();
        }
        if (problem.isEmpty()) {
            problem = config.backend().refuses(metadata).orElse("");
        }
        ModelDescriptor descriptor = new ModelDescriptor(found.id(), aliases, path, metadata);
        for (String name : descriptor.names()) {
            if (findExact(name).isPresent()) {
                throw new ForgeException("two models answer to '" + name + "': "
                        + findExact(name).get().descriptor().path() + " and " + path);
            }
        }
        String configured = !template.isEmpty()
                ? template
                : descriptor.names().stream()
                        .map(config::modelTemplate)
                        .flatMap(Optional::stream)
                        .findFirst()
                        .orElse(config.templateName());
        TemplateSelection selection = null;
        try {
            selection = config.templates().select(descriptor, configured);
        } catch (ForgeException e) {
            if (!configured.isEmpty()) {
                throw e; // a --template name nobody renders: the command line is wrong, not the model
            }
            problem = problem.isEmpty() ? e.getMessage() : problem;
        }
        String templateError = null;
        if (problem.isEmpty() && selection != null) {
            templateError = unusableTemplate(descriptor, selection).orElse(null);
            problem = templateError != null ? templateError : "";
        }
        ModelState state = problem.isEmpty() ? new ModelState.Unloaded() : new ModelState.Unavailable(problem);
        ModelEntry entry = new ModelEntry(descriptor, selection, found.source(), found.parts(), state, templateError);
        // a configured projector wins over one found beside the model; --no-mmproj drops the found one
        Optional<Path> projector = descriptor.names().stream()
                .map(config::modelProjector)
                .flatMap(Optional::stream)
                .findFirst()
                .or(() -> config.foundProjectors() ? found.projector() : Optional.empty());
        projector.ifPresent(p -> {
            entry.projector(p);
            LOG.info("model {}: multimodal projector {}", descriptor.id(), p);
        });
        entries.add(entry);
        if (problem.isEmpty()) {
            LOG.info(
                    "model {}{} [{}] ({}): chat template {} ({}: {})",
                    descriptor.id(),
                    aliases.isEmpty() ? "" : " alias " + String.join(", ", aliases),
                    found.source(),
                    path,
                    selection.variant(),
                    selection.rule(),
                    selection.reason());
        } else {
            LOG.warn("model {} [{}] ({}) is unavailable: {}", descriptor.id(), found.source(), path, problem);
        }
        return Optional.of(entry);
    }

    /** Why the chosen template cannot render this model's conversations (its own Jinja does not parse, say). */
    private static Optional<String> unusableTemplate(ModelDescriptor d, TemplateSelection selection) {
        try {
            // No vocabulary is loaded yet: BOS and EOS render as empty text, which parsing does not need.
            return selection
                    .provider()
                    .create(selection.variant(), new TemplateContext(d, "", ""))
                    .unusable();
        } catch (RuntimeException e) {
            return Optional.of("the chat template " + selection.variant() + " cannot be created: " + e.getMessage());
        }
    }

    /** {@code metadata} with {@code source} as its chat template; unchanged when {@code source} is null. */
    public static ModelMetadata withTemplate(ModelMetadata metadata, String source) {
        if (source == null) {
            return metadata;
        }
        Map<String, Object> values = new LinkedHashMap<>(metadata.values());
        values.put("tokenizer.chat_template", source);
        return new ModelMetadata(values, metadata.arrayLengths());
    }

    /** Every registered model, in the order registered. */
    public List<ModelEntry> entries() {
        return List.copyOf(entries);
    }

    /**
     * The model answering to {@code name}: its id or an alias, exactly, else ignoring case; or the
     * model one of whose adapters is served under {@code name} ({@link ModelEntry#adapterNamed}).
     */
    public Optional<ModelEntry> find(String name) {
        return findExact(name)
                .or(() -> entries.stream()
                        .filter(e -> e.descriptor().names().stream().anyMatch(n -> n.equalsIgnoreCase(name)))
                        .findFirst())
                .or(() -> entries.stream()
                        .filter(e -> e.adapterNamed(name).isPresent())
                        .findFirst());
    }

    /** Whether the GGUF file says it is an adapter; a file that cannot be read is left to registration. */
    private static boolean isAdapter(Path file) {
        try (GgufReader reader = GgufReader.open(file)) {
            return reader.value("general.type")
                    .map(v -> v instanceof GgufValue.Str str && str.value().equals("adapter"))
                    .orElse(false);
        } catch (RuntimeException e) {
            return false;
        }
    }

    private Optional<ModelEntry> findExact(String name) {
        return entries.stream().filter(e -> e.descriptor().answersTo(name)).findFirst();
    }
}
