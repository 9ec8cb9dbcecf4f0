package forge.backend.llamacpp;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import forge.api.BackendException;
import forge.api.SamplerStageException;
import forge.api.SamplingException;
import forge.api.sampler.SamplerStage;
import forge.api.sampler.TokenCandidates;
import forge.backend.llamacpp.ffm.Llama;
import forge.backend.llamacpp.ffm.Structs;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Keeps a sampler chain's grammar and logit biases from aborting the process.
 *
 * <p>{@code llama_sampler_sample} applies the chain, then accepts the chosen token into every
 * stage. When the grammar admits no token (a grammar of {@code [\x00]}, which no token can write; a
 * grammar at a dead end; logit biases that ban every token it admits), every candidate's logit is
 * {@code -inf}, the draw still picks one, and the grammar's accept throws a C++ exception ("Unexpected
 * empty grammar stack after accepting piece") through the downcall, or {@code GGML_ABORT}s for an
 * end-of-generation token: either ends the JVM. So the grammar is not a stage of the chain itself
 * but is wrapped in two stages of ours, implemented in Java through {@code llama_sampler_i}:
 * <ul>
 *   <li>the <b>grammar</b> stage (in the grammar's place) applies the grammar as it is, and on accept
 *       first asks the grammar about the chosen token alone (a one-candidate apply, as llama.cpp's
 *       common sampler checks a token): a token the grammar does not admit is never accepted;</li>
 *   <li>the <b>check</b> stage (last in the chain) sees the chosen candidate: one whose logit is
 *       {@code -inf} means nothing was allowed. It also keeps {@code selected} inside the array,
 *       which {@code llama_sampler_sample} asserts.</li>
 * </ul>
 * After the sample, {@link #verify} turns what they saw into a {@link SamplingException}, which ends
 * that request alone.
 *
 * <p>A lazy grammar (tool calls in {@code auto} mode) admits everything until its trigger appears;
 * the accept that completes the trigger then replays the output from the trigger on into the
 * grammar, and a replayed piece it refuses (a token {@code {"name": 5} after the trigger
 * {@code {"name": }) throws the same C++ exception. So while the grammar awaits its trigger the
 * guard mirrors llama.cpp's trigger buffer, and before forwarding the accept that would fire it,
 * checks the replay on a strict copy of the grammar (the replayed text tokenized, each token asked
 * alone, then accepted): a replay the grammar refuses is not forwarded, so the grammar keeps
 * waiting and the output stays free text, as if the trigger had not been written.
 *
 * <p>The same machinery runs a request's <b>plugin stages</b> ({@link forge.api.sampler.SamplerStage}):
 * each is a stage of the chain, in its place in the request's order, whose {@code apply},
 * {@code accept} and {@code reset} are upcalls into the plugin's Java object. The plugin sees the
 * candidates through a view over the native array ({@link forge.api.sampler.TokenCandidates}, no
 * copy) that refuses a NaN or {@code +inf} logit; whatever a stage throws, or such a write, is
 * kept as a {@link SamplerStageException} naming the stage, stops the stages after it, and is
 * rethrown by {@link #verify}: the request fails, the engine goes on.
 *
 * <p>A chain with no grammar, no logit biases and no plugin stage has no guard: sampling then
 * runs without a single upcall.
 *
 * <p>Lifecycle: the upcall stubs and the two {@code llama_sampler_i} tables are made once per
 * process, in {@link Arena#global()}, as the libraries that call them are never unloaded. Each
 * guard has a key (a multiple of 256), passed as the stages' {@code ctx} (plus 1 + the plugin stage's index for a plugin stage), that finds it from an upcall; it is registered
 * while its sampler lives and removed by {@link #close}. The stages themselves are owned by the
 * chain (freed with it; their {@code free} is NULL), the wrapped grammar by the guard's arena.
 * Upcalls never throw: a failure inside one is kept and rethrown by {@link #verify}.
 */
@SuppressWarnings("restricted") // native access is this module's purpose; it is granted with --enable-native-access
final class SamplingGuard {
    private static final float NEG_INF = Float.NEGATIVE_INFINITY;
    private static final long TOKEN_DATA = Structs.llama_token_data.byteSize();
    private static final long ID = Structs.offset(Structs.llama_token_data, "id");
    private static final long LOGIT = Structs.offset(Structs.llama_token_data, "logit");
    private static final long DATA = Structs.offset(Structs.llama_token_data_array, "data");
    private static final long SIZE = Structs.offset(Structs.llama_token_data_array, "size");
    private static final long SELECTED = Structs.offset(Structs.llama_token_data_array, "selected");
    private static final long SORTED = Structs.offset(Structs.llama_token_data_array, "sorted");
    private static final long CTX = Structs.offset(Structs.llama_sampler, "ctx");

    private static final Map<Long, SamplingGuard> LIVE = new ConcurrentHashMap<>();
    private static final AtomicLong KEYS = new AtomicLong();
    /** A key's low byte tells a plugin stage (1 + its index) from the guard's own stages (0). */
    private static final long STAGE_BITS = 0xFF;
    /** The most plugin stages one chain may hold. */
    static final int MAX_PLUGIN_STAGES = (int) STAGE_BITS;

    /** The two stage tables, made on first use. */
    private static final class Tables {
        static final MemorySegment GRAMMAR;
        static final MemorySegment CHECK;
        static final MemorySegment PLUGIN;

        // void (*apply)(struct llama_sampler * smpl, llama_token_data_array * cur_p);
        private static final FunctionDescriptor APPLY = FunctionDescriptor.ofVoid(ADDRESS, ADDRESS);
        // void (*accept)(struct llama_sampler * smpl, llama_token token);
        private static final FunctionDescriptor ACCEPT = FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT);
        // void (*reset)(struct llama_sampler * smpl);
        private static final FunctionDescriptor RESET = FunctionDescriptor.ofVoid(ADDRESS);

        static {
            try {
                GRAMMAR = table("forge-grammar", "grammarApply", "grammarAccept", "grammarReset");
                CHECK = table("forge-check", "checkApply");
                PLUGIN = table("forge-plugin", "pluginApply", "pluginAccept", "pluginReset");
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /** A table named {@code name} whose {@code apply} is the static method {@code apply}; every other function NULL. */
        private static MemorySegment table(String name, String apply) throws ReflectiveOperationException {
            Arena global = Arena.global();
            MemorySegment table = global.allocate(Structs.llama_sampler_i); // zeroed: every other function NULL
            Structs.setAddress(table, Structs.llama_sampler_i, "name", global.allocateFrom(name));
            Structs.setAddress(table, Structs.llama_sampler_i, "apply", upcall(apply, APPLY));
            return table;
        }

        /** A table that also follows the accepted tokens: {@code accept} and {@code reset} are those static methods. */
        private static MemorySegment table(String name, String apply, String accept, String reset)
                throws ReflectiveOperationException {
            MemorySegment table = table(name, apply);
            Structs.setAddress(table, Structs.llama_sampler_i, "accept", upcall(accept, ACCEPT));
            Structs.setAddress(table, Structs.llama_sampler_i, "reset", upcall(reset, RESET));
            return table;
        }

        /** An upcall stub, for as long as the process lives, of this class's static method {@code method}. */
        private static MemorySegment upcall(String method, FunctionDescriptor type)
                throws ReflectiveOperationException {
            MethodHandle target = MethodHandles.lookup().findStatic(SamplingGuard.class, method, type.toMethodType());
            return Linker.nativeLinker().upcallStub(target, type, Arena.global());
        }
    }

    private final long key = KEYS.addAndGet(STAGE_BITS + 1);
    private final LlamaVocabulary vocab;
    private final Arena arena;
    /** The wrapped grammar sampler, or NULL: owned by the sampler's arena. */
    private final MemorySegment grammar;
    /** For a lazy grammar: its text, its trigger texts and tokens; else empty. */
    private final String grammarText;

    private final List<byte[]> triggerTexts;
    private final Set<Integer> triggerTokens;
    /** Whether the (lazy) grammar still awaits its trigger, and what llama.cpp's trigger buffer holds. */
    private boolean awaiting;

    private final ByteArrayOutputStream triggerBuffer = new ByteArrayOutputStream();
    /** A strict copy of a lazy grammar, made the first time a replay is checked; NULL until then. */
    private MemorySegment checker = MemorySegment.NULL;
    /** One candidate and its array, for asking the grammar about one token. */
    private final MemorySegment one;

    private final MemorySegment oneArray;
    /** Stands in for an empty candidate array, so that {@code selected} always points into one. */
    private final MemorySegment fallback;
    /** What the last sample saw: empty when all was well. */
    private String refusal = "";

    private Throwable failure;
    private int steps;
    /** The request's plugin stages, by index, with their names. */
    private final List<Plugin> plugins = new ArrayList<>();
    /** The first plugin stage's failure: kept across samples (a reset's or accept's too), never cleared. */
    private SamplerStageException stageFailure;

    private final View view = new View();

    private record Plugin(String name, SamplerStage stage) {}

    /**
     * @param grammar the grammar sampler to wrap (owned by {@code arena}), or NULL for none
     * @param arena   the sampler's arena, confined to the thread that samples
     */
    SamplingGuard(LlamaVocabulary vocab, MemorySegment grammar, Arena arena) {
        this(vocab, grammar, arena, "", List.of(), Set.of());
    }

    /**
     * A guard for a lazy grammar.
     *
     * @param grammarText   the grammar's GBNF
     * @param triggerTexts  the triggers matched as text (searched anywhere in the output)
     * @param triggerTokens the triggers that are single tokens
     */
    SamplingGuard(
            LlamaVocabulary vocab,
            MemorySegment grammar,
            Arena arena,
            String grammarText,
            List<String> triggerTexts,
            Set<Integer> triggerTokens) {
        this.vocab = vocab;
        this.arena = arena;
        this.grammar = grammar;
        this.grammarText = grammarText;
        this.triggerTexts = triggerTexts.stream()
                .map(t -> t.getBytes(StandardCharsets.UTF_8))
                .toList();
        this.triggerTokens = Set.copyOf(triggerTokens);
        this.awaiting = !grammarText.isEmpty();
        this.one = arena.allocate(Structs.llama_token_data);
        this.oneArray = arena.allocate(Structs.llama_token_data_array);
        this.fallback = arena.allocate(Structs.llama_token_data);
        LIVE.put(key, this);
    }

    /** The stage to put where the grammar goes, or NULL when there is no grammar. */
    MemorySegment grammarStage() {
        return grammar.equals(MemorySegment.NULL)
                ? MemorySegment.NULL
                : Llama.llama_sampler_init(Tables.GRAMMAR, MemorySegment.ofAddress(key));
    }

    /**
     * A chain stage that runs {@code stage}, a plugin's, for this guard's sampler.
     *
     * @throws BackendException when the chain has too many plugin stages
     */
    MemorySegment pluginStage(String name, SamplerStage stage) {
        if (plugins.size() >= MAX_PLUGIN_STAGES) {
            throw new BackendException("at most " + MAX_PLUGIN_STAGES + " plugin stages per chain");
        }
        plugins.add(new Plugin(name, stage));
        return Llama.llama_sampler_init(Tables.PLUGIN, MemorySegment.ofAddress(key + plugins.size()));
    }

    /** The stage to put last in the chain. */
    MemorySegment checkStage() {
        return Llama.llama_sampler_init(Tables.CHECK, MemorySegment.ofAddress(key));
    }

    /** Forgets the last sample's verdict; call before each. */
    void clear() {
        refusal = "";
        failure = null;
    }

    /**
     * Throws what the last sample's stages saw.
     *
     * @throws SamplingException when no token was allowed
     * @throws BackendException  when a stage itself failed
     */
    void verify() {
        steps++;
        if (stageFailure != null) {
            throw stageFailure;
        }
        if (failure != null) {
            throw new BackendException("sampling failed: " + failure.getMessage(), failure);
        }
        if (!refusal.isEmpty()) {
            throw new SamplingException(refusal + " (at generated token " + steps + ")");
        }
    }

    /** How many guards are registered: what a test counts to see that a chain has none. */
    static int live() {
        return LIVE.size();
    }

    /** Unregisters the guard; its stages are not called again once their chain is freed. */
    void close() {
        LIVE.remove(key);
    }

    /** Whether the grammar admits {@code token} next, asked without changing its state. */
    private boolean admits(int token) {
        return admits(grammar, token);
    }

    private boolean admits(MemorySegment grammar, int token) {
        one.set(JAVA_INT, ID, token);
        one.set(JAVA_FLOAT, LOGIT, 0f);
        oneArray.set(ADDRESS, DATA, one);
        oneArray.set(JAVA_LONG, SIZE, 1);
        oneArray.set(JAVA_LONG, SELECTED, -1);
        oneArray.set(JAVA_BOOLEAN, SORTED, false);
        Llama.llama_sampler_apply(grammar, oneArray);
        return one.get(JAVA_FLOAT, LOGIT) != NEG_INF;
    }

    /**
     * An accept while a lazy grammar awaits its trigger, as llama_grammar_accept_impl handles it:
     * forwarded unless it fires the trigger with a replay the grammar refuses.
     */
    private void acceptAwaiting(int token) {
        if (triggerTokens.contains(token)) {
            // llama.cpp replays just this token into the grammar.
            if (replayAdmitted(vocab.piece(token, true))) {
                awaiting = false;
                triggerBuffer.reset();
                Llama.llama_sampler_accept(grammar, token);
            }
            return;
        }
        byte[] piece = vocab.piece(token, true);
        byte[] buffer = Arrays.copyOf(triggerBuffer.toByteArray(), triggerBuffer.size() + piece.length);
        System.arraycopy(piece, 0, buffer, triggerBuffer.size(), piece.length);
        int start = -1;
        for (byte[] trigger : triggerTexts) {
            // In llama.cpp's order: the first pattern that matches, at its leftmost match.
            start = indexOf(buffer, trigger);
            if (start >= 0) {
                break;
            }
        }
        if (start < 0) {
            triggerBuffer.writeBytes(piece);
            Llama.llama_sampler_accept(grammar, token);
            return;
        }
        if (replayAdmitted(Arrays.copyOfRange(buffer, start, buffer.length))) {
            awaiting = false;
            triggerBuffer.reset();
            Llama.llama_sampler_accept(grammar, token);
        }
        // Else not forwarded: llama.cpp never sees the token, and its buffer stays as ours.
    }

    /** Whether the grammar, from its start, accepts {@code text}: checked on a strict copy of it. */
    private boolean replayAdmitted(byte[] text) {
        String replay;
        try {
            replay = StandardCharsets.UTF_8
                    .newDecoder()
                    .decode(ByteBuffer.wrap(text))
                    .toString();
        } catch (CharacterCodingException e) {
            return false; // a replay that ends inside a character: too rare to be worth the risk
        }
        if (checker.equals(MemorySegment.NULL)) {
            checker = Llama.llama_sampler_init_grammar(
                    vocab.segment(), arena.allocateFrom(grammarText), arena.allocateFrom("root"));
            if (checker.equals(MemorySegment.NULL)) {
                return false;
            }
            checker = checker.reinterpret(arena, Llama::llama_sampler_free);
        } else {
            Llama.llama_sampler_reset(checker);
        }
        for (int t : vocab.tokenize(replay, false, true)) {
            if (!admits(checker, t)) {
                return false;
            }
            Llama.llama_sampler_accept(checker, t);
        }
        return true;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static SamplingGuard of(MemorySegment smpl) {
        long key = ctx(smpl);
        return LIVE.get(key & ~STAGE_BITS);
    }

    private static long ctx(MemorySegment smpl) {
        return smpl.reinterpret(Structs.llama_sampler.byteSize())
                .get(ADDRESS, CTX)
                .address();
    }

    /** The plugin stage an upcall is for. */
    private Plugin plugin(MemorySegment smpl) {
        return plugins.get((int) (ctx(smpl) & STAGE_BITS) - 1);
    }

    private void stageFailed(Plugin p, String what, Throwable t) {
        if (stageFailure == null) {
            stageFailure = new SamplerStageException(p.name(), what + ": " + t, t);
        }
    }

    /**
     * The candidates as a plugin stage sees them: the native array itself, bounds-checked, and
     * refusing a logit no later stage could sample from. Reused for every apply of the guard.
     */
    private final class View implements TokenCandidates {
        private MemorySegment data = MemorySegment.NULL;
        private int size;
        private String invalid;

        void of(MemorySegment curP) {
            MemorySegment array = curP.reinterpret(Structs.llama_token_data_array.byteSize());
            long n = array.get(JAVA_LONG, SIZE);
            size = (int) Math.max(0, Math.min(n, Integer.MAX_VALUE));
            data = size == 0 ? MemorySegment.NULL : array.get(ADDRESS, DATA).reinterpret(size * TOKEN_DATA);
            invalid = null;
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public int token(int i) {
            return data.get(JAVA_INT, index(i) + ID);
        }

        @Override
        public float logit(int i) {
            return data.get(JAVA_FLOAT, index(i) + LOGIT);
        }

        @Override
        public void logit(int i, float logit) {
            long at = index(i);
            if (Float.isNaN(logit) || logit == Float.POSITIVE_INFINITY) {
                invalid = "it set the logit of token " + data.get(JAVA_INT, at + ID) + " to " + logit;
                throw new IllegalArgumentException(invalid);
            }
            data.set(JAVA_FLOAT, at + LOGIT, logit);
        }

        private long index(int i) {
            if (i < 0 || i >= size) {
                throw new IndexOutOfBoundsException("candidate " + i + " of " + size);
            }
            return i * TOKEN_DATA;
        }
    }

    // ---------------------------------------------------------------- upcalls: never throw

    private static void grammarApply(MemorySegment smpl, MemorySegment curP) {
        SamplingGuard g = null;
        try {
            g = of(smpl);
            if (g != null && g.failure == null && g.refusal.isEmpty()) {
                Llama.llama_sampler_apply(g.grammar, curP);
            }
        } catch (Throwable t) {
            if (g != null) {
                g.failure = t;
            }
        }
    }

    private static void grammarAccept(MemorySegment smpl, int token) {
        SamplingGuard g = null;
        try {
            g = of(smpl);
            if (g == null || g.failure != null || !g.refusal.isEmpty() || g.stageFailure != null) {
                return; // the request fails: its grammar's state no longer matters
            }
            if (token < 0 || token >= g.vocab.size()) {
                g.refusal = "the sampled token " + token + " is not in the vocabulary";
                return;
            }
            if (g.awaiting) {
                g.acceptAwaiting(token);
                return;
            }
            if (!g.admits(token)) {
                g.refusal = "the grammar does not allow the sampled token " + token
                        + "; no token the model can write is allowed here";
                return;
            }
            Llama.llama_sampler_accept(g.grammar, token);
        } catch (Throwable t) {
            if (g != null) {
                g.failure = t;
            }
        }
    }

    private static void grammarReset(MemorySegment smpl) {
        try {
            SamplingGuard g = of(smpl);
            if (g != null) {
                Llama.llama_sampler_reset(g.grammar);
                g.awaiting = !g.grammarText.isEmpty();
                g.triggerBuffer.reset();
            }
        } catch (Throwable t) {
            // Nothing may escape an upcall; a reset is followed by a sample, which verifies.
        }
    }

    private static void pluginApply(MemorySegment smpl, MemorySegment curP) {
        SamplingGuard g = null;
        Plugin p = null;
        try {
            g = of(smpl);
            if (g == null || g.stageFailure != null || g.failure != null || !g.refusal.isEmpty()) {
                return; // the request fails anyway: the stages after the failure are not run
            }
            p = g.plugin(smpl);
            g.view.of(curP);
            p.stage().apply(g.view);
            if (g.view.invalid != null) {
                // Written, refused, and the refusal swallowed by the stage: it still fails.
                g.stageFailed(p, "apply", new IllegalArgumentException(g.view.invalid));
            }
        } catch (Throwable t) {
            if (g != null && p != null) {
                g.stageFailed(p, "apply", t);
            } else if (g != null) {
                g.failure = t;
            }
        }
    }

    private static void pluginAccept(MemorySegment smpl, int token) {
        onPlugin(smpl, "accept", stage -> stage.accept(token));
    }

    private static void pluginReset(MemorySegment smpl) {
        onPlugin(smpl, "reset", SamplerStage::reset);
    }

    /** Calls a plugin stage from an upcall: what it throws is kept, never let through. */
    private static void onPlugin(MemorySegment smpl, String what, Consumer<SamplerStage> call) {
        SamplingGuard g = null;
        Plugin p = null;
        try {
            g = of(smpl);
            if (g == null || g.stageFailure != null) {
                return;
            }
            p = g.plugin(smpl);
            call.accept(p.stage());
        } catch (Throwable t) {
            if (g != null && p != null) {
                g.stageFailed(p, what, t);
            }
        }
    }

    private static void checkApply(MemorySegment smpl, MemorySegment curP) {
        SamplingGuard g = null;
        try {
            g = of(smpl);
            MemorySegment array = curP.reinterpret(Structs.llama_token_data_array.byteSize());
            long size = array.get(JAVA_LONG, SIZE);
            long selected = array.get(JAVA_LONG, SELECTED);
            if (size <= 0) {
                // llama_sampler_sample asserts 0 <= selected < size: point it at a stand-in.
                if (g != null) {
                    g.fallback.set(JAVA_INT, ID, 0);
                    g.fallback.set(JAVA_FLOAT, LOGIT, NEG_INF);
                    array.set(ADDRESS, DATA, g.fallback);
                }
                array.set(JAVA_LONG, SIZE, 1);
                array.set(JAVA_LONG, SELECTED, 0);
                if (g != null && g.refusal.isEmpty()) {
                    g.refusal = "no token is left to sample from";
                }
                return;
            }
            if (selected < 0 || selected >= size) {
                array.set(JAVA_LONG, SELECTED, 0);
                selected = 0;
            }
            MemorySegment data = array.get(ADDRESS, DATA).reinterpret(size * TOKEN_DATA);
            if (data.get(JAVA_FLOAT, selected * TOKEN_DATA + LOGIT) == NEG_INF && g != null && g.refusal.isEmpty()) {
                String bans = g.plugins.isEmpty()
                        ? "the logit biases"
                        : "the logit biases or sampler stages "
                                + g.plugins.stream()
                                        .map(Plugin::name)
                                        .distinct()
                                        .toList();
                g.refusal = g.grammar.equals(MemorySegment.NULL)
                        ? bans + " ban every token"
                        : "the grammar allows no token here, or " + bans + " ban every token it allows";
            }
        } catch (Throwable t) {
            if (g != null) {
                g.failure = t;
            }
        }
    }
}
