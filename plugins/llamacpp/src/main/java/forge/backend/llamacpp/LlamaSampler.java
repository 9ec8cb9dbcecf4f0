package forge.backend.llamacpp;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import forge.api.BackendException;
import forge.api.backend.TokenSampler;
import forge.api.sampler.SamplingParams;
import forge.backend.llamacpp.ffm.Llama;
import forge.backend.llamacpp.ffm.LlamaLog;
import forge.backend.llamacpp.ffm.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;

/**
 * A native sampler chain for one sequence, built in llama.cpp's order: logit bias, penalties,
 * grammar, then either greedy, or top-k, top-p, min-p, temperature and a seeded draw.
 *
 * <p>Owns a confined arena on its context's thread; the chain pointer is attached to it with
 * {@code llama_sampler_free} (which frees the stages the chain owns). Closed by its owner, or by
 * its context when the context closes.
 *
 * <p>{@link #accept} feeds prompt tokens to the penalties stage only: the grammar constrains what
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
    /** The penalties stage inside the chain (owned by it), or NULL. */
    private final MemorySegment penalties;
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
                MemorySegment biases = arena.allocate(Structs.llama_logit_bias, params.logitBias().size());
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
            boolean neutralPenalties = params.repeatLastN() == 0 || (params.repeatPenalty() == 1f
                    && params.frequencyPenalty() == 0f && params.presencePenalty() == 0f);
            if (neutralPenalties) {
                this.penalties = MemorySegment.NULL;
            } else {
                int lastN = params.repeatLastN() == -1 ? context.contextSize() : params.repeatLastN();
                this.penalties = add(Llama.llama_sampler_init_penalties(nVocab, lastN, params.repeatPenalty(),
                        params.frequencyPenalty(), params.presencePenalty()), "penalties");
            }
            if (!params.grammar().isEmpty()) {
                LlamaLog.takeLastError();
                MemorySegment grammar;
                java.util.List<String> texts = new java.util.ArrayList<>();
                java.util.Set<Integer> tokens = new java.util.LinkedHashSet<>();
                if (params.grammarTriggers().isEmpty()) {
                    grammar = Llama.llama_sampler_init_grammar(vocab.segment(),
                            arena.allocateFrom(params.grammar()), arena.allocateFrom("root"));
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
                        : new SamplingGuard(vocab, grammar.reinterpret(arena, Llama::llama_sampler_free), arena,
                                params.grammar(), texts, tokens);
                add(guarded.grammarStage(), "grammar");
            } else if (!params.logitBias().isEmpty()) {
                guarded = new SamplingGuard(vocab, MemorySegment.NULL, arena);
            }
            if (params.greedy()) {
                add(Llama.llama_sampler_init_greedy(), "greedy");
            } else {
                if (params.topK() > 0) {
                    add(Llama.llama_sampler_init_top_k(params.topK()), "top_k");
                }
                if (params.topP() < 1f) {
                    add(Llama.llama_sampler_init_top_p(params.topP(), 1), "top_p");
                }
                if (params.minP() > 0f) {
                    add(Llama.llama_sampler_init_min_p(params.minP(), 1), "min_p");
                }
                add(Llama.llama_sampler_init_temp(params.temperature()), "temp");
                int seed = params.seed() == -1 ? LLAMA_DEFAULT_SEED : (int) params.seed();
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
     * A grammar that engages at a trigger: a trigger that is one token of the vocabulary (a
     * special token such as {@code <tool_call>}) triggers as that token; any other as a regex that
     * matches its text literally, searched anywhere in the output (llama.cpp's "word" triggers).
     * The grammar sees the output from the trigger on, so its root starts with the trigger.
     */
    private MemorySegment lazyGrammar(LlamaVocabulary vocab, String gbnf, java.util.List<String> texts,
                                      java.util.Set<Integer> tokens) {
        java.util.List<String> patterns = texts.stream().map(LlamaSampler::regexEscape).toList();
        MemorySegment patternArray = arena.allocate(java.lang.foreign.ValueLayout.ADDRESS, Math.max(1, patterns.size()));
        for (int i = 0; i < patterns.size(); i++) {
            patternArray.setAtIndex(java.lang.foreign.ValueLayout.ADDRESS, i, arena.allocateFrom(patterns.get(i)));
        }
        MemorySegment tokenArray = arena.allocate(JAVA_INT, Math.max(1, tokens.size()));
        int i = 0;
        for (int token : tokens) {
            tokenArray.setAtIndex(JAVA_INT, i++, token);
        }
        return Llama.llama_sampler_init_grammar_lazy_patterns(vocab.segment(), arena.allocateFrom(gbnf),
                arena.allocateFrom("root"), patternArray, patterns.size(), tokenArray, tokens.size());
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
        if (!penalties.equals(MemorySegment.NULL)) {
            Llama.llama_sampler_accept(penalties, token);
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
