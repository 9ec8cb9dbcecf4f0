package forge.runtime.catalog;

import forge.api.backend.LoadedModel;
import forge.api.backend.LoraAdapter;
import forge.api.backend.MediaTokens;
import forge.api.backend.Vocabulary;
import forge.api.model.ModelDescriptor;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.runtime.engine.Embedder;
import forge.runtime.engine.Engine;
import forge.runtime.engine.EngineException;
import forge.runtime.engine.GenerationRequest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;

/**
 * A loaded model with its engine and chat template: what requests run on.
 */
public final class ServedModel implements AutoCloseable {

    private final ModelDescriptor descriptor;
    private final LoadedModel model;
    private final Engine engine;
    private final ChatTemplate template;
    private final TemplateSelection selection;
    private final ContextSizing.Choice context;
    private final Set<Integer> endOfTurnTokens;
    private final List<String> endOfTurnTexts;
    private final long kvBytes;
    private final List<LoraAdapter> adapters;
    private Embedder embedder; // created on first use: most servers never embed
    private String halted; // why no decode may run any more (see halt); null while it serves; guarded by this

    ServedModel(
            ModelDescriptor descriptor,
            LoadedModel model,
            Engine engine,
            ChatTemplate template,
            TemplateSelection selection,
            ContextSizing.Choice context,
            long kvBytes,
            List<LoraAdapter> adapters) {
        this.adapters = List.copyOf(adapters);
        this.descriptor = descriptor;
        this.kvBytes = kvBytes;
        this.context = context;
        this.model = model;
        this.engine = engine;
        this.template = template;
        this.selection = selection;
        // The template's end-of-turn markers stop generation even when the GGUF's EOS differs:
        // as token ids when the vocabulary has them as single tokens, else as stop strings.
        Set<Integer> tokens = new HashSet<>();
        List<String> texts = new ArrayList<>();
        for (String marker : template.endOfTurn()) {
            OptionalInt id = model.vocabulary().tokenOf(marker);
            if (id.isPresent()) {
                tokens.add(id.getAsInt());
            } else {
                texts.add(marker);
            }
        }
        this.endOfTurnTokens = Set.copyOf(tokens);
        this.endOfTurnTexts = List.copyOf(texts);
    }

    public ModelDescriptor descriptor() {
        return descriptor;
    }

    public LoadedModel model() {
        return model;
    }

    public Vocabulary vocabulary() {
        return model.vocabulary();
    }

    public Engine engine() {
        return engine;
    }

    /**
     * The LoRA adapters loaded with the model, by index: its entry's {@link ModelEntry#adapters()} as
     * they were when it loaded (one added since loads with the model's next load).
     */
    public List<LoraAdapter> adapters() {
        return adapters;
    }

    public ChatTemplate template() {
        return template;
    }

    public TemplateSelection selection() {
        return selection;
    }

    /** The context it was given, and why. */
    public ContextSizing.Choice context() {
        return context;
    }

    /** The bytes of its KV cache, estimated from the GGUF's shape and the context given; 0 when unknown. */
    public long kvBytes() {
        return kvBytes;
    }

    /** Renders the conversation to prompt text. */
    public String render(ChatPrompt prompt) {
        return template.render(prompt);
    }

    /** Renders, tokenizes and submits a chat completion. */
    public ChatGeneration chat(ChatPrompt prompt, ChatOptions options) {
        try (PreparedChat prepared = prepare(prompt)) {
            return chat(prepared, options);
        }
    }

    /**
     * Renders and tokenizes a conversation without submitting it: a route fits its request to the
     * prompt's size (or only counts it) before it asks for generation, and renders once for all
     * the choices it submits.
     */
    public PreparedChat prepare(ChatPrompt prompt) {
        return prepare(prompt, template);
    }

    /**
     * {@link #prepare(ChatPrompt)} with {@code template}, which a route wraps around the model's
     * own for one request (the generic tool-call format); its parser then reads the answer. The
     * turn still ends at the model's own end-of-turn texts.
     */
    public PreparedChat prepare(ChatPrompt prompt, ChatTemplate template) {
        String text = template.render(prompt);
        // A template that writes the BOS token as text gets no second one from the tokenizer.
        if (!prompt.images().isEmpty()) {
            // the template rendered each image's marker where it was; the projector splits there
            MediaTokens media = model.media(text, prompt.images(), !template.rendersBos());
            return new PreparedChat(prompt, media.tokens(), template, media);
        }
        return new PreparedChat(prompt, model.vocabulary().tokenize(text, !template.rendersBos(), true), template);
    }

    /** Submits a prepared conversation. */
    public ChatGeneration chat(PreparedChat prepared, ChatOptions options) {
        List<String> stops = new ArrayList<>(options.stops());
        stops.addAll(endOfTurnTexts);
        var generation = engine.submit(new GenerationRequest(
                options.requestId(),
                prepared.tokens(),
                options.sampling(),
                options.maxTokens(),
                stops,
                endOfTurnTokens,
                options.ignoreEos(),
                options.logprobs(),
                false,
                options.speculation(),
                options.adapters(),
                prepared.media()));
        return new ChatGeneration(generation, prepared.template().parser(prepared.prompt()), prepared.tokens().length);
    }

    /** Pooled, normalized embeddings from a context of their own (created on first use). */
    public synchronized Embedder embedder() {
        if (halted != null) {
            throw new EngineException(EngineException.Code.UNAVAILABLE, halted);
        }
        if (embedder == null) {
            int train = model.info().trainContext();
            int max = Math.min(engine.config().batchSize(), train > 0 ? train : Integer.MAX_VALUE);
            embedder = new Embedder(
                    descriptor.id(), model, Math.max(16, max), engine.config().threads());
        }
        return embedder;
    }

    /**
     * Stops every decode of this model after the ones running now, which this waits for: its mapped
     * file changed, so its weights must not be read again. Chat requests running on it fail, new ones
     * and embeddings are refused (503); the model stays allocated until {@link #close()}, as requests
     * may still hold it (tokenizing reads the vocabulary, not the weights).
     */
    public void halt(String why) {
        Embedder e;
        synchronized (this) {
            halted = why;
            e = embedder;
        }
        if (e != null) {
            e.halt(why);
        }
        engine.close();
    }

    @Override
    public void close() {
        synchronized (this) {
            if (embedder != null) {
                embedder.close();
            }
        }
        engine.close();
        model.close();
    }
}
