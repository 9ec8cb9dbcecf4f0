package forge.runtime.catalog;

import forge.api.backend.Backend;
import forge.runtime.BackendChoice;
import forge.runtime.engine.EngineConfig;
import forge.runtime.engine.PromptCache;
import forge.runtime.engine.PromptCacheStore;
import forge.runtime.engine.SyntheticAcceptance;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything a {@link ModelCatalog} is configured with, fixed when it is built: the catalog has
 * no setter, so no setting's effect depends on when it was given (before or after a model was
 * registered or loaded). Made by a {@link Builder}; each setting the builder was not given has
 * the default its method names.
 *
 * {@snippet :
 * CatalogConfig config = CatalogConfig.builder(backend, selector)
 *         .engineConfig(EngineConfig.defaults())
 *         .lifecycle(new ModelLoader.Lifecycle(KeepAlive.parse("5m"), UnloadPolicy.UNLIMITED, Duration.ofMinutes(10)))
 *         .build();
 * try (ModelCatalog catalog = new ModelCatalog(config)) {
 *     catalog.add(Path.of("qwen2.5-0.5b-instruct-q8_0.gguf"), List.of("qwen"));
 * }
 * }
 */
public final class CatalogConfig {

    private final Backend backend;
    private final TemplateSelector templates;
    private final EngineConfig engineConfig;
    private final ContextSizing.Policy contextPolicy;
    private final String templateName;
    private final Map<String, String> modelTemplates;
    private final Map<String, Path> modelProjectors;
    private final boolean foundProjectors;
    private final String templateSource;
    private final boolean mmap;
    private final Duration fileSettle;
    private final PromptCache promptCache;
    private final PromptCacheStore promptCacheStore;
    private final ModelLoader.Lifecycle lifecycle;
    private final List<BackendChoice> backendChoices;
    private final DraftModel draftModel;
    private final SyntheticAcceptance synthetic;

    private CatalogConfig(Builder b) {
        this.backend = b.backend;
        this.templates = b.templates;
        this.engineConfig = b.engineConfig;
        // resolved here, not when engineConfig was given: the default follows the final engine settings
        this.contextPolicy =
                b.contextPolicy != null ? b.contextPolicy : ContextSizing.Policy.fixed(b.engineConfig.contextSize());
        this.templateName = b.templateName;
        this.modelTemplates = Map.copyOf(b.modelTemplates);
        this.modelProjectors = Map.copyOf(b.modelProjectors);
        this.foundProjectors = b.foundProjectors;
        this.templateSource = b.templateSource;
        this.mmap = b.mmap;
        this.fileSettle = b.fileSettle;
        this.draftModel = b.draftModel;
        this.synthetic = b.synthetic;
        this.promptCache = b.promptCache;
        this.promptCacheStore = b.promptCacheStore;
        this.lifecycle = b.lifecycle;
        this.backendChoices = List.copyOf(b.backendChoices);
    }

    /** A builder of the configuration of a catalog whose models {@code backend} loads and {@code templates} render. */
    public static Builder builder(Backend backend, TemplateSelector templates) {
        return new Builder(backend, templates);
    }

    /** The backend that loads the models. */
    public Backend backend() {
        return backend;
    }

    /** How templates are chosen, and every installed one. */
    public TemplateSelector templates() {
        return templates;
    }

    /** The engine settings every model is served with (its context is capped at load by the model's training context). */
    public EngineConfig engineConfig() {
        return engineConfig;
    }

    /** How each model's context is sized when it loads. */
    public ContextSizing.Policy contextPolicy() {
        return contextPolicy;
    }

    /** The template every model uses ({@code --template}); empty to choose per model. */
    public String templateName() {
        return templateName;
    }

    /** The template named for the model answering to {@code name} (id or alias, ignoring case), if any. */
    public Optional<String> modelTemplate(String name) {
        return Optional.ofNullable(modelTemplates.get(name.toLowerCase(Locale.ROOT)));
    }

    /** Every per-model template, by model name in lower case. */
    public Map<String, String> modelTemplates() {
        return modelTemplates;
    }

    /**
     * The multimodal projector configured for the model answering to {@code name} (id or alias,
     * ignoring case), if any: it wins over one found beside the model.
     */
    public Optional<Path> modelProjector(String name) {
        return Optional.ofNullable(modelProjectors.get(name.toLowerCase(Locale.ROOT)));
    }

    /**
     * Whether a projector found beside a model ({@code ModelSource.Found.projector}) is loaded with
     * it: yes unless {@code --no-mmproj}.
     */
    public boolean foundProjectors() {
        return foundProjectors;
    }

    /** The Jinja chat template every model uses instead of its GGUF's ({@code --chat-template-file}), if any. */
    public Optional<String> templateSource() {
        return Optional.ofNullable(templateSource);
    }

    /** The draft model every model is served with ({@code --model-draft}), if any. */
    public Optional<DraftModel> draftModel() {
        return Optional.ofNullable(draftModel);
    }

    /** Benchmark-only synthetic acceptance of draft tokens; {@link SyntheticAcceptance#OFF} unless given. */
    public SyntheticAcceptance synthetic() {
        return synthetic;
    }

    /**
     * A draft model for speculative decoding ({@code --model-draft}): loaded beside each model the
     * catalog serves, with the same mapping choice, and refused with that model's load when their
     * vocabularies do not match.
     *
     * @param path      its GGUF file
     * @param gpuLayers its layers on a GPU ({@code --gpu-layers-draft}); -1 for the backend's choice
     */
    public record DraftModel(Path path, int gpuLayers) {
        public DraftModel {
            Objects.requireNonNull(path, "path");
        }
    }

    /** Whether weights are mapped from their files (the default; {@code --no-mmap} turns it off) rather than read into memory. */
    public boolean mmap() {
        return mmap;
    }

    /** How long a mapped model's file changed in place must stay unchanged before it is reloaded. */
    public Duration fileSettle() {
        return fileSettle;
    }

    /** The host prompt cache the engines share ({@link PromptCache#OFF} when none). */
    public PromptCache promptCache() {
        return promptCache;
    }

    /** Where the prompt cache is kept across restarts, if anywhere. */
    public Optional<PromptCacheStore> promptCacheStore() {
        return Optional.ofNullable(promptCacheStore);
    }

    /** How models load and unload. */
    public ModelLoader.Lifecycle lifecycle() {
        return lifecycle;
    }

    /** Every backend candidate with its verdict, for {@code /props}. */
    public List<BackendChoice> backendChoices() {
        return backendChoices;
    }

    /**
     * Collects the settings of a {@link CatalogConfig}; {@link #build} makes the configuration,
     * which later calls on the builder do not change.
     */
    public static final class Builder {
        private final Backend backend;
        private final TemplateSelector templates;
        private EngineConfig engineConfig = EngineConfig.defaults();
        private ContextSizing.Policy contextPolicy;
        private String templateName = "";
        private final Map<String, String> modelTemplates = new LinkedHashMap<>();
        private final Map<String, Path> modelProjectors = new LinkedHashMap<>();
        private boolean foundProjectors = true;
        private String templateSource;
        private boolean mmap = true;
        private Duration fileSettle = Duration.ofSeconds(2);
        private PromptCache promptCache = PromptCache.OFF;
        private PromptCacheStore promptCacheStore;
        private ModelLoader.Lifecycle lifecycle = ModelLoader.Lifecycle.DEFAULT;
        private List<BackendChoice> backendChoices = List.of();
        private DraftModel draftModel;
        private SyntheticAcceptance synthetic = SyntheticAcceptance.OFF;

        private Builder(Backend backend, TemplateSelector templates) {
            this.backend = Objects.requireNonNull(backend);
            this.templates = Objects.requireNonNull(templates);
        }

        /** The engine settings every model is served with; {@link EngineConfig#defaults()} unless given. */
        public Builder engineConfig(EngineConfig config) {
            this.engineConfig = Objects.requireNonNull(config);
            return this;
        }

        /**
         * How each model's context is sized when it loads (the engine settings' context size is
         * then not used); unless given, the engine settings' context size, fixed.
         */
        public Builder contextPolicy(ContextSizing.Policy policy) {
            this.contextPolicy = Objects.requireNonNull(policy);
            return this;
        }

        /** The template every model uses ({@code --template}); empty (the default) to choose per model. */
        public Builder template(String name) {
            this.templateName = Objects.requireNonNull(name);
            return this;
        }

        /**
         * The model answering to {@code name} (id or alias, ignoring case) uses {@code template}
         * whatever its metadata says.
         */
        public Builder modelTemplate(String name, String template) {
            modelTemplates.put(name.toLowerCase(Locale.ROOT), Objects.requireNonNull(template));
            return this;
        }

        /**
         * The model answering to {@code name} (id or alias, ignoring case) is served with the
         * multimodal projector {@code projector} (llama-server's {@code --mmproj}), whatever was
         * found beside it.
         */
        public Builder modelProjector(String name, Path projector) {
            modelProjectors.put(
                    name.toLowerCase(Locale.ROOT), projector.toAbsolutePath().normalize());
            return this;
        }

        /**
         * Whether projectors found beside models are loaded with them (default yes; llama-server's
         * {@code --no-mmproj} says no, and then only a configured projector is).
         */
        public Builder foundProjectors(boolean use) {
            this.foundProjectors = use;
            return this;
        }

        /**
         * Every model uses {@code source} as its chat template, in place of its GGUF's
         * {@code tokenizer.chat_template} (llama-server's {@code --chat-template-file}): the
         * families see it as the model's own (one of theirs, exactly, is still rendered by them)
         * and the generic plugin renders any other. Null (the default) for none.
         */
        public Builder templateSource(String source) {
            this.templateSource = source;
            return this;
        }

        /**
         * Maps weights from their files rather than reading them into memory: on by default, as
         * llama-server's (a start costs no copy of the file, and processes share its pages);
         * {@code --no-mmap} turns it off. A file truncated or overwritten in place while mapped would
         * fault with SIGBUS when native code reads a page past its new end, which ends the JVM: the
         * loader's file watch unloads such a model first (the package documentation).
         */
        public Builder mmap(boolean on) {
            this.mmap = on;
            return this;
        }

        /**
         * How long a mapped model's file, changed in place, must stay unchanged before it is
         * reloaded ({@code --model-file-settle}, default 2 s): a copy in progress is not loaded half
         * written. Requests for the model get 503 meanwhile.
         */
        public Builder fileSettle(Duration settle) {
            if (settle.isNegative() || settle.isZero()) {
                throw new IllegalArgumentException("the settle time must be positive: " + settle);
            }
            this.fileSettle = settle;
            return this;
        }

        /**
         * The engines save their slots' states into {@code cache} and restore prompts from it
         * ({@code --cache-ram}); with a {@code store} ({@code --prompt-cache-dir}), each model's
         * entries are read from disk before its engine starts, and the catalog closes the store
         * when it closes. Off by default.
         */
        public Builder promptCache(PromptCache cache, PromptCacheStore store) {
            this.promptCache = Objects.requireNonNull(cache);
            this.promptCacheStore = store;
            return this;
        }

        /** Every model is served with {@code draft} as its draft model; none unless given. */
        public Builder draftModel(DraftModel draft) {
            this.draftModel = draft;
            return this;
        }

        /** Draft tokens are accepted at random as {@code s} says: benchmarks only. Off unless given. */
        public Builder synthetic(SyntheticAcceptance s) {
            this.synthetic = Objects.requireNonNull(s);
            return this;
        }

        /** How models load and unload; {@link ModelLoader.Lifecycle#DEFAULT} unless given. */
        public Builder lifecycle(ModelLoader.Lifecycle lifecycle) {
            this.lifecycle = Objects.requireNonNull(lifecycle);
            return this;
        }

        /** Every backend candidate with its verdict, for {@code /props}; none unless given. */
        public Builder backendChoices(List<BackendChoice> choices) {
            this.backendChoices = List.copyOf(choices);
            return this;
        }

        /** The configuration as set so far. */
        public CatalogConfig build() {
            return new CatalogConfig(this);
        }
    }
}
