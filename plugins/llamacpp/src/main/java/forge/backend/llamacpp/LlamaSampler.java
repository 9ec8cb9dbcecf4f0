package forge.backend.llamacpp;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import forge.api.BackendException;
import forge.api.SamplerStageException;
import forge.api.backend.TokenSampler;
import forge.api.sampler.BuiltinStage;
import forge.api.sampler.PluginStage;
import forge.api.sampler.SamplerStage;
import forge.api.sampler.SamplerStep;
import forge.api.sampler.SamplingParams;
import forge.backend.llamacpp.ffm.Llama;
import forge.backend.llamacpp.ffm.LlamaLog;
import forge.backend.llamacpp.ffm.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A native sampler chain for one sequence: logit bias, then the request's steps in its order
 * ({@link SamplingParams#samplers()}, llama-server's {@code samplers}; by default penalties, dry,
 * top_n_sigma, top_k, typ_p, top_p, min_p, xtc, temperature), the grammar right after the leading
 * penalties and dry steps (so that every other stage, a plugin's too, sees only what it allows),
 * then the draw: greedy at temperature 0, mirostat's when asked, else seeded. Each built-in stage
 * at its neutral value is left out, so the default chain is the one llama.cpp's order gives:
 * logit bias, penalties, grammar, top-k, top-p, min-p, temperature, draw. As llama.cpp's common
 * sampler does, a mirostat chain keeps of the built-in steps only temperature (and the plugin
 * stages); at temperature 0 only the penalties, dry and plugin stages run before the greedy choice:
 * the truncating stages cannot change the most likely token.
 *
 * <p>A plugin stage ({@link PluginStage}) is made for this sequence here, on the engine's thread,
 * and runs in its place through {@link SamplingGuard}'s upcalls; a chain without one makes no upcall
 * for it.
 *
 * <p>Owns a confined arena on its context's thread; the chain pointer is attached to it with
 * {@code llama_sampler_free} (which frees the stages the chain owns). Closed by its owner, or by
 * its context when the context closes.
 *
 * <p>{@link #accept} feeds prompt tokens to the penalties and dry stages only: the grammar constrains what
 * the model generates, and accepting a token it does not allow would throw inside llama.cpp
 * (which aborts the process). For the same reason a chain with a grammar or logit biases samples
 * under a {@link SamplingGuard}: a step at which nothing is allowed fails with a
 * {@link forge.api.SamplingException} instead of reaching the grammar's accept.
 */
@SuppressWarnings("restricted") // native access is this module's purpose; it is granted with --enable-native-access
public final class LlamaSampler implements TokenSampler {
    /** {@code LLAMA_DEFAULT_SEED}: llama.cpp draws a random seed. */
    private static final int LLAMA_DEFAULT_SEED = 0xFFFFFFFF;

    private final LlamaContext context;
    private final Thread owner = Thread.currentThread();
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment chain;
    /** The stages inside the chain (owned by it) that prompt tokens are fed to: penalties and dry. */
    private final List<MemorySegment> promptStages = new ArrayList<>();
    /** Set when the chain has a grammar or logit biases; else null, and sampling makes no upcall. */
    private final SamplingGuard guard;

    private boolean closed;

    LlamaSampler(LlamaContext context, SamplingParams params) {
        this.context = context;
        LlamaVocabulary vocab = (LlamaVocabulary) context.model().vocabulary();
        int nVocab = vocab.size();
        MemorySegment chainParams = Llama.llama_sampler_chain_default_params(arena);
        Structs.setBoolean(chainParams, Structs.llama_sampler_chain_params, "no_perf", true);
        this.chain = Llama.llama_sampler_chain_init(chainParams).reinterpret(arena, Llama::llama_sampler_free);
        SamplingGuard guarded = null;
        try {
            if (!params.logitBias().isEmpty()) {
                MemorySegment biases = arena.allocate(
                        Structs.llama_logit_bias, params.logitBias().size());
                long stride = Structs.llama_logit_bias.byteSize();
                long tokenOffset = Structs.offset(Structs.llama_logit_bias, "token");
                long biasOffset = Structs.offset(Structs.llama_logit_bias, "bias");
                int i = 0;
                for (Map.Entry<Integer, Float> e : params.logitBias().entrySet()) {
                    // llama.cpp indexes the logits with the token unchecked.
                    vocab.checkToken(e.getKey());
                    biases.set(JAVA_INT, i * stride + tokenOffset, e.getKey());
                    biases.set(JAVA_FLOAT, i * stride + biasOffset, e.getValue());
                    i++;
                }
                add(Llama.llama_sampler_init_logit_bias(nVocab, i, biases), "logit_bias");
            }
            if (!params.grammar().isEmpty()) {
                LlamaLog.takeLastError();
                MemorySegment grammar;
                List<String> texts = new ArrayList<>();
                Set<Integer> tokens = new LinkedHashSet<>();
                if (params.grammarTriggers().isEmpty()) {
                    grammar = Llama.llama_sampler_init_grammar(
                            vocab.segment(), arena.allocateFrom(params.grammar()), arena.allocateFrom("root"));
                } else {
                    for (String trigger : params.grammarTriggers()) {
                        var token = vocab.tokenOf(trigger);
                        if (token.isPresent()) {
                            tokens.add(token.getAsInt());
                        } else {
                            texts.add(trigger);
                        }
                    }
                    grammar = lazyGrammar(vocab, params.grammar(), texts, tokens);
                }
                if (grammar.equals(MemorySegment.NULL)) {
                    String why = LlamaLog.takeLastError();
                    throw new BackendException("invalid grammar" + (why.isEmpty() ? "" : " (" + why + ")")
                            + ": the GBNF did not parse or has no 'root' rule");
                }
                // Not a stage of the chain: the guard's stage applies it and accepts only what it admits.
                guarded = params.grammarTriggers().isEmpty()
                        ? new SamplingGuard(vocab, grammar.reinterpret(arena, Llama::llama_sampler_free), arena)
                        : new SamplingGuard(
                                vocab,
                                grammar.reinterpret(arena, Llama::llama_sampler_free),
                                arena,
                                params.grammar(),
                                texts,
                                tokens);
            } else if (!params.logitBias().isEmpty() || !params.pluginStages().isEmpty()) {
                guarded = new SamplingGuard(vocab, MemorySegment.NULL, arena);
            }
            int seed = params.seed() == -1 ? LLAMA_DEFAULT_SEED : (int) params.seed();
            int mirostat = params.greedy() ? 0 : params.mirostatVersion();
            // The grammar's stage is made where it goes: a stage not yet in the chain would leak on a failure.
            boolean grammarAdded = params.grammar().isEmpty();
            for (SamplerStep step : params.samplers()) {
                if (!grammarAdded && step != BuiltinStage.PENALTIES && step != BuiltinStage.DRY) {
                    add(guarded.grammarStage(), "grammar");
                    grammarAdded = true;
                }
                switch (step) {
                    case PluginStage plugin -> add(guarded.pluginStage(plugin.name(), create(plugin)), plugin.name());
                    case BuiltinStage builtin -> builtin(builtin, params, vocab, seed, mirostat);
                }
            }
            if (!grammarAdded) {
                add(guarded.grammarStage(), "grammar");
            }
            if (params.greedy()) {
                add(Llama.llama_sampler_init_greedy(), "greedy");
            } else if (mirostat == 1) {
                add(Llama.llama_sampler_init_temp(params.temperature()), "temp");
                // m = 100, as llama.cpp's common sampler and the paper use.
                add(
                        Llama.llama_sampler_init_mirostat(
                                nVocab,
                                seed,
                                params.mirostat().tau(),
                                params.mirostat().eta(),
                                100),
                        "mirostat");
            } else if (mirostat == 2) {
                add(Llama.llama_sampler_init_temp(params.temperature()), "temp");
                add(
                        Llama.llama_sampler_init_mirostat_v2(
                                seed, params.mirostat().tau(), params.mirostat().eta()),
                        "mirostat_v2");
            } else {
                add(Llama.llama_sampler_init_dist(seed), "dist");
            }
            if (guarded != null) {
                add(guarded.checkStage(), "check");
            }
        } catch (RuntimeException | Error e) {
            if (guarded != null) {
                guarded.close();
            }
            arena.close();
            throw e;
        }
        this.guard = guarded;
    }

    /**
     * Adds one built-in step, unless it is neutral, or dropped by a greedy or mirostat chain (see
     * the class documentation).
     */
    private void builtin(BuiltinStage step, SamplingParams params, LlamaVocabulary vocab, int seed, int mirostat) {
        int nVocab = vocab.size();
        boolean truncating = !params.greedy() && mirostat == 0;
        switch (step) {
            case PENALTIES -> {
                boolean neutral = params.repeatLastN() == 0
                        || (params.repeatPenalty() == 1f
                                && params.frequencyPenalty() == 0f
                                && params.presencePenalty() == 0f);
                if (!neutral && mirostat == 0) {
                    int lastN = params.repeatLastN() == -1 ? context.contextSize() : params.repeatLastN();
                    promptStages.add(add(
                            Llama.llama_sampler_init_penalties(
                                    nVocab,
                                    lastN,
                                    params.repeatPenalty(),
                                    params.frequencyPenalty(),
                                    params.presencePenalty()),
                            "penalties"));
                }
            }
            case DRY -> {
                SamplingParams.Dry dry = params.dry();
                if (dry.enabled() && mirostat == 0) {
                    List<String> breakers = dry.sequenceBreakers();
                    MemorySegment array = arena.allocate(ValueLayout.ADDRESS, Math.max(1, breakers.size()));
                    for (int i = 0; i < breakers.size(); i++) {
                        array.setAtIndex(ValueLayout.ADDRESS, i, arena.allocateFrom(breakers.get(i)));
                    }
                    int lastN = dry.penaltyLastN() == -1 ? context.contextSize() : dry.penaltyLastN();
                    promptStages.add(add(
                            Llama.llama_sampler_init_dry(
                                    vocab.segment(),
                                    dry.multiplier(),
                                    dry.base(),
                                    dry.allowedLength(),
                                    lastN,
                                    array,
                                    breakers.size()),
                            "dry"));
                }
            }
            case TOP_N_SIGMA -> {
                if (truncating && params.topNSigma() > 0) {
                    add(Llama.llama_sampler_init_top_n_sigma(params.topNSigma()), "top_n_sigma");
                }
            }
            case TOP_K -> {
                if (truncating && params.topK() > 0) {
                    add(Llama.llama_sampler_init_top_k(params.topK()), "top_k");
                }
            }
            case TYPICAL_P -> {
                if (truncating && params.typicalP() < 1f) {
                    add(Llama.llama_sampler_init_typical(params.typicalP(), 1), "typical");
                }
            }
            case TOP_P -> {
                if (truncating && params.topP() < 1f) {
                    add(Llama.llama_sampler_init_top_p(params.topP(), 1), "top_p");
                }
            }
            case MIN_P -> {
                if (truncating && params.minP() > 0f) {
                    add(Llama.llama_sampler_init_min_p(params.minP(), 1), "min_p");
                }
            }
            case XTC -> {
                if (truncating && params.xtc().enabled()) {
                    add(
                            Llama.llama_sampler_init_xtc(
                                    params.xtc().probability(), params.xtc().threshold(), 1, seed),
                            "xtc");
                }
            }
            case TEMPERATURE -> {
                if (truncating) {
                    add(Llama.llama_sampler_init_temp(params.temperature()), "temp");
                }
            }
            case MIROSTAT -> {
                // Not a stage in its place: it chooses the draw (mirostatVersion).
            }
        }
    }

    /** This sequence's instance of a plugin stage; its failure to be made fails the request, named. */
    private static SamplerStage create(PluginStage plugin) {
        SamplerStage stage;
        try {
            stage = plugin.create();
        } catch (RuntimeException | LinkageError e) {
            throw new SamplerStageException(plugin.name(), "could not be created: " + e, e);
        }
        if (stage == null) {
            throw new SamplerStageException(plugin.name(), "its plugin made no stage", null);
        }
        return stage;
    }

    /**
     * A grammar that engages at a trigger: a trigger that is one token of the vocabulary (a
     * special token such as {@code <tool_call>}) triggers as that token; any other as a regex that
     * matches its text literally, searched anywhere in the output (llama.cpp's "word" triggers).
     * The grammar sees the output from the trigger on, so its root starts with the trigger.
     */
    private MemorySegment lazyGrammar(LlamaVocabulary vocab, String gbnf, List<String> texts, Set<Integer> tokens) {
        List<String> patterns = texts.stream().map(LlamaSampler::regexEscape).toList();
        MemorySegment patternArray = arena.allocate(ValueLayout.ADDRESS, Math.max(1, patterns.size()));
        for (int i = 0; i < patterns.size(); i++) {
            patternArray.setAtIndex(ValueLayout.ADDRESS, i, arena.allocateFrom(patterns.get(i)));
        }
        MemorySegment tokenArray = arena.allocate(JAVA_INT, Math.max(1, tokens.size()));
        int i = 0;
        for (int token : tokens) {
            tokenArray.setAtIndex(JAVA_INT, i++, token);
        }
        return Llama.llama_sampler_init_grammar_lazy_patterns(
                vocab.segment(),
                arena.allocateFrom(gbnf),
                arena.allocateFrom("root"),
                patternArray,
                patterns.size(),
                tokenArray,
                tokens.size());
    }

    /** {@code text} as a std::regex (ECMAScript) that matches it literally, as common's regex_escape does. */
    static String regexEscape(String text) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (".^$|()*+?[]{}\\".indexOf(c) >= 0) {
                sb.append('\\');
            }
            sb.append(c);
        }
        return sb.toString();
    }

    /** Appends a stage to the chain, which takes ownership of it. */
    private MemorySegment add(MemorySegment stage, String name) {
        if (stage.equals(MemorySegment.NULL)) {
            throw new BackendException("llama.cpp could not create the " + name + " sampler");
        }
        Llama.llama_sampler_chain_add(chain, stage);
        return stage;
    }

    @Override
    public int sample(int batchIndex) {
        ensureOpen();
        context.checkOutput(batchIndex);
        if (guard == null) {
            return Llama.llama_sampler_sample(chain, context.segment(), batchIndex);
        }
        guard.clear();
        int token = Llama.llama_sampler_sample(chain, context.segment(), batchIndex);
        guard.verify();
        return token;
    }

    @Override
    public void accept(int token) {
        ensureOpen();
        ((LlamaVocabulary) context.model().vocabulary()).checkToken(token);
        for (MemorySegment stage : promptStages) {
            Llama.llama_sampler_accept(stage, token);
        }
    }

    /** Forgets what the chain has seen: penalties' history, the grammar's state, the draw's RNG. */
    public void reset() {
        ensureOpen();
        Llama.llama_sampler_reset(chain);
    }

    /** Frees the chain. Harmless when already closed. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (Thread.currentThread() != owner) {
            throw new BackendException("the sampler belongs to thread " + owner.getName() + ", not "
                    + Thread.currentThread().getName());
        }
        closed = true;
        if (guard != null) {
            guard.close();
        }
        arena.close();
        context.samplerClosed(this);
    }

    private void ensureOpen() {
        if (closed) {
            throw new BackendException("the sampler is closed");
        }
        context.ensureOpen();
    }
}
