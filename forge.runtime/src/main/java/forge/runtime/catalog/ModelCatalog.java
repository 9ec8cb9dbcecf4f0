package forge.runtime.catalog;

import forge.api.ForgeException;
import forge.api.backend.Backend;
import forge.api.backend.LoadProgress;
import forge.api.backend.LoadedModel;
import forge.api.backend.ModelLoadParams;
import forge.api.backend.Vocabulary;
import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import forge.api.template.ChatTemplate;
import forge.api.template.TemplateContext;
import forge.runtime.engine.Engine;
import forge.runtime.engine.EngineConfig;
import forge.runtime.engine.PromptCache;
import forge.runtime.engine.PromptCacheStore;
import forge.runtime.gguf.GgufReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The models the server answers for, by id and alias, loaded on first use.
 *
 * <p>Only files registered here (from {@code --model} and the model folders) can ever be loaded:
 * a request names a model by id, never by path.
 */
public final class ModelCatalog implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ModelCatalog.class);

    private final Backend backend;
    private final TemplateSelector templates;
    private final EngineConfig engineConfig;
    private final ContextSizing.Policy contextPolicy;
    private final String templateName;
    private final List<ModelEntry> entries = new CopyOnWriteArrayList<>();
    private final java.util.Map<String, String> modelTemplates = new java.util.concurrent.ConcurrentHashMap<>();
    /**
     * Whether weights are mapped from their files rather than read into memory. Off by default:
     * llama.cpp reads mapped weights in native code, and a file truncated or overwritten in place
     * while it is served (a {@code cp} over it) then faults with SIGBUS, which ends the JVM.
     */
    private volatile boolean mmap;
    /** A Jinja chat template every model uses instead of its GGUF's ({@code --chat-template-file}); null for none. */
    private volatile String templateSource;
    /** The host prompt cache every engine saves its slots' states into ({@code --cache-ram}); off by default. */
    private volatile PromptCache promptCache = PromptCache.OFF;
    /** Where that cache is kept across restarts ({@code --prompt-cache-dir}); null for memory only. */
    private volatile PromptCacheStore promptCacheStore;
    /** Every backend candidate and its verdict, for {@code /props}. */
    private volatile java.util.List<forge.runtime.BackendChoice> backendChoices = java.util.List.of();

    /**
     * @param templateName the template every model uses ({@code --template}); empty to choose per model
     */
    public ModelCatalog(Backend backend, TemplateSelector templates, EngineConfig engineConfig, String templateName) {
        this(backend, templates, engineConfig, templateName, ContextSizing.Policy.fixed(engineConfig.contextSize()));
    }

    /**
     * @param templateName  the template every model uses ({@code --template}); empty to choose per model
     * @param contextPolicy how each model's context is sized when it loads ({@code engineConfig}'s
     *                      context size is then not used)
     */
    public ModelCatalog(Backend backend, TemplateSelector templates, EngineConfig engineConfig, String templateName,
                        ContextSizing.Policy contextPolicy) {
        this.backend = backend;
        this.templates = templates;
        this.engineConfig = engineConfig;
        this.templateName = templateName;
        this.contextPolicy = contextPolicy;
    }

    /** How each model's context is sized when it loads. */
    public ContextSizing.Policy contextPolicy() {
        return contextPolicy;
    }

    /** How this catalog chooses templates, and every installed one. */
    /** Maps weights from their files ({@code --mmap}) instead of reading them into memory; see {@link #mmap}. */
    public void useMmap(boolean on) {
        this.mmap = on;
    }

    /**
     * Every model registered after this uses {@code source} as its chat template, in place of its
     * GGUF's {@code tokenizer.chat_template} (llama-server's {@code --chat-template-file}): the
     * families see it as the model's own (one of theirs, exactly, is still rendered by them) and the
     * generic plugin renders any other.
     */
    public void useTemplateSource(String source) {
        this.templateSource = source;
    }

    /**
     * Makes the engines loaded from now on save their slots' states into {@code cache} and restore
     * prompts from it; with a {@code store}, each model's entries are read from disk before its
     * engine starts, and the catalog closes the store when it closes.
     */
    public void usePromptCache(PromptCache cache, PromptCacheStore store) {
        this.promptCache = java.util.Objects.requireNonNull(cache);
        this.promptCacheStore = store;
    }

    /** The host prompt cache the engines share ({@link PromptCache#OFF} when none). */
    public PromptCache promptCache() {
        return promptCache;
    }

    /** Where the prompt cache is kept across restarts, if anywhere. */
    public java.util.Optional<PromptCacheStore> promptCacheStore() {
        return java.util.Optional.ofNullable(promptCacheStore);
    }

    public TemplateSelector templates() {
        return templates;
    }

    /** The engine settings every model is served with (its context is capped at load by the model's training context). */
    public EngineConfig engineConfig() {
        return engineConfig;
    }

    /** The backend that loads the models, by name. */
    public String backendName() {
        return backend.name();
    }

    /** The backend that loads the models: its devices for {@code /props}. */
    public Backend backend() {
        return backend;
    }

    /** Every backend candidate with its verdict, for {@code /props} (set by the server at start). */
    public java.util.List<forge.runtime.BackendChoice> backendChoices() {
        return backendChoices;
    }

    public void useBackendChoices(java.util.List<forge.runtime.BackendChoice> choices) {
        this.backendChoices = java.util.List.copyOf(choices);
    }

    /**
     * Per-model configuration: the model answering to {@code name} (id or alias, ignoring case),
     * when it is registered, uses {@code template} whatever its metadata says. Set before
     * registering the models.
     */
    public void configureTemplate(String name, String template) {
        modelTemplates.put(name.toLowerCase(Locale.ROOT), template);
    }

    /** The canonical id of a model file: its name without {@code .gguf}. */
    public static String idOf(Path file) {
        String name = file.getFileName().toString();
        return name.toLowerCase(Locale.ROOT).endsWith(".gguf") ? name.substring(0, name.length() - 5) : name;
    }

    /**
     * Registers a GGUF file under its canonical id and the given aliases. Reads its metadata (not
     * its weights) and chooses its chat template.
     *
     * @throws ForgeException when the file is missing or not GGUF, or a name is taken
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
        ModelMetadata metadata = withTemplate(GgufReader.read(path).metadata(), templateSource);
        ModelDescriptor descriptor = new ModelDescriptor(idOf(path), aliases, path, metadata);
        for (String name : descriptor.names()) {
            if (findExact(name).isPresent()) {
                throw new ForgeException("two models answer to '" + name + "'");
            }
        }
        String configured = !template.isEmpty() ? template : descriptor.names().stream()
                .map(n -> modelTemplates.get(n.toLowerCase(Locale.ROOT))).filter(java.util.Objects::nonNull)
                .findFirst().orElse(templateName);
        TemplateSelection selection = templates.select(descriptor, configured);
        ModelEntry entry = new ModelEntry(descriptor, selection);
        entries.add(entry);
        LOG.info("model {}{} ({}): chat template {} ({}: {})", descriptor.id(),
                aliases.isEmpty() ? "" : " alias " + String.join(", ", aliases), path,
                selection.variant(), selection.rule(), selection.reason());
        return entry;
    }

    /** {@code metadata} with {@code source} as its chat template; unchanged when {@code source} is null. */
    public static ModelMetadata withTemplate(ModelMetadata metadata, String source) {
        if (source == null) {
            return metadata;
        }
        java.util.Map<String, Object> values = new java.util.LinkedHashMap<>(metadata.values());
        values.put("tokenizer.chat_template", source);
        return new ModelMetadata(values, metadata.arrayLengths());
    }

    /** Registers every {@code .gguf} file of a folder; files that cannot be read are logged and skipped. */
    public List<ModelEntry> addFolder(Path folder) {
        List<ModelEntry> added = new ArrayList<>();
        if (!Files.isDirectory(folder)) {
            return added;
        }
        try (Stream<Path> files = Files.list(folder)) {
            for (Path f : files.filter(p -> p.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".gguf")).sorted().toList()) {
                try {
                    added.add(add(f, List.of()));
                } catch (ForgeException e) {
                    LOG.warn("skipping {}: {}", f, e.getMessage());
                }
            }
        } catch (IOException e) {
            LOG.warn("cannot list model folder {}: {}", folder, e.toString());
        }
        return added;
    }

    public List<ModelEntry> entries() {
        return List.copyOf(entries);
    }

    /** The model answering to {@code name}: its id or an alias, exactly, else ignoring case. */
    public Optional<ModelEntry> find(String name) {
        return findExact(name).or(() -> entries.stream()
                .filter(e -> e.descriptor().names().stream().anyMatch(n -> n.equalsIgnoreCase(name))).findFirst());
    }

    private Optional<ModelEntry> findExact(String name) {
        return entries.stream().filter(e -> e.descriptor().answersTo(name)).findFirst();
    }


    /**
     * The entry's model, loading it (weights, engine, template) on first use. Concurrent callers
     * for the same model wait for one load.
     */
    public ServedModel serve(ModelEntry entry) {
        Optional<ServedModel> served = entry.served();
        if (served.isPresent()) {
            return served.get();
        }
        synchronized (entry) {
            if (entry.served().isPresent()) {
                return entry.served().get();
            }
            ServedModel model = load(entry);
            entry.served(model);
            return model;
        }
    }

    private ServedModel load(ModelEntry entry) {
        ModelDescriptor d = entry.descriptor();
        long start = System.nanoTime();
        LOG.info("loading {} from {}", d.id(), d.path());
        int[] lastQuarter = {-1};
        LoadProgress progress = fraction -> {
            int quarter = (int) (fraction * 4);
            if (quarter > lastQuarter[0]) {
                lastQuarter[0] = quarter;
                LOG.info("loading {}: {}%", d.id(), Math.min(100, quarter * 25));
            }
            return true;
        };
        LoadedModel model = backend.load(new ModelLoadParams(d.path(), -1, mmap, false), progress);
        try {
            Vocabulary vocab = model.vocabulary();
            ChatTemplate template = entry.template().provider().create(entry.template().variant(),
                    new TemplateContext(d, tokenText(vocab, vocab.bos()), tokenText(vocab, vocab.eos())));
            // No slot gets more context than the model was trained for; without -c, what memory holds.
            ContextSizing.Choice context = ContextSizing.choose(contextPolicy, model.info().trainContext(),
                    ContextSizing.kvBytesPerToken(d.metadata(), engineConfig.kvCacheType()), model.info().sizeBytes(),
                    engineConfig.slots());
            LOG.info("context for {}: {} cells, {} per slot ({}: {})", d.id(), context.contextSize(), context.slotContext(),
                    context.source(), context.reason());
            EngineConfig config = engineConfig.withContext(context.contextSize(), engineConfig.slots());
            PromptCache.Key key = promptCacheKey(d, config);
            Engine engine = new Engine(d.id(), model, config, promptCache, key);
            LOG.info("loaded {} in {} ms: {}", d.id(), (System.nanoTime() - start) / 1_000_000, model.info().description());
            return new ServedModel(d, model, engine, template, entry.template(), context);
        } catch (RuntimeException e) {
            model.close();
            throw e;
        }
    }

    /** The key of a model's entries in the prompt cache, after reading its files from disk; null when there is no cache. */
    private PromptCache.Key promptCacheKey(ModelDescriptor d, EngineConfig config) {
        if (!promptCache.enabled()) {
            return null;
        }
        try {
            PromptCache.Key key = PromptCache.Key.of(d.path(), config);
            PromptCacheStore store = promptCacheStore;
            if (store != null) {
                int loaded = store.load(key);
                LOG.info("prompt cache: {} entr{} of {} read from {}", loaded, loaded == 1 ? "y" : "ies", d.id(), store.dir());
            }
            return key;
        } catch (java.io.IOException e) {
            LOG.warn("no prompt cache for {}: cannot read its model file's identity: {}", d.id(), e.getMessage());
            return null;
        }
    }

    private static String tokenText(Vocabulary vocab, java.util.OptionalInt token) {
        return token.isPresent() ? new String(vocab.piece(token.getAsInt(), true), StandardCharsets.UTF_8) : "";
    }

    @Override
    public void close() {
        for (ModelEntry e : entries) {
            e.served().ifPresent(ServedModel::close);
        }
        PromptCacheStore store = promptCacheStore;
        if (store != null) {
            store.close(); // after the engines: their last saves are written
        }
    }
}
