package forge.runtime.engine;

import forge.api.ForgeException;
import forge.api.backend.InferenceContext;
import forge.api.backend.TokenLogprobs;
import forge.api.backend.TokenSampler;
import forge.api.backend.Vocabulary;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A request while it holds a slot: its sampler, the text on its way out (UTF-8 and stop strings),
 * its counters, log-probabilities, prompt scores and timings. Created when the request is admitted
 * and dropped when it ends, so nothing is ever reset. It knows nothing of KV cells: the
 * {@link Scheduler} puts its tokens in batches and acts on what it says. Engine thread only.
 */
final class ActiveRequest {

    /** Waiting for slot {@code slot}'s request {@code leader} to compute {@code awaited} cells of a prefix both share. */
    record Waiting(int slot, ActiveRequest leader, int awaited) {}

    final Generation generation;
    final GenerationRequest request;
    final int[] prompt;
    final TokenSampler sampler;
    private final InferenceContext context;
    private final Vocabulary vocab;
    private final Utf8Accumulator utf8 = new Utf8Accumulator();
    private final StopMatcher stops;
    /** The most tokens to generate: {@code max_tokens}, or what the prompt leaves of the slot's context. */
    private final int limit;

    private final long startNanos;
    /** Log-probabilities of tokens not yet emitted; null when the generation did not ask (no cost). */
    private final List<TokenLogprob> logprobs;
    /** The prompt's log-probabilities so far, for a generation that scores its prompt; null once sent, or when it does not. */
    private List<TokenLogprob> promptScores;

    /** Its speculative decoding; {@link Speculation#OFF} when it drafts nothing. */
    final Speculation speculation;
    /** Draws benchmark-only synthetic acceptance ({@link SyntheticAcceptance}); null for real verification. */
    final Random synthetic;
    /** This step's draft: {@code draft[0..draftLength)} follow {@link #lastToken} in the batch. Sized once, at admission. */
    final int[] draft;

    int draftLength;
    /** Tokens drafted and accepted over the request, for its {@link Timings}. */
    int draftTokens;

    int draftAccepted;

    // Adaptive drafting (the engine package's "Adaptive drafting"): how long its next draft may be, and
    // how many decode steps it skips drafting after drafts that were rejected whole.
    private int draftAllowed;
    private int draftMisses;
    private int coolDown;
    private int nextPause = FIRST_PAUSE;

    /** The longest first draft: a request proves its drafts are accepted before it drafts more. */
    static final int FIRST_DRAFT = 8;
    /** The steps a request skips drafting after its second draft in a row with nothing accepted. */
    static final int FIRST_PAUSE = 4;
    /** Each further draft with nothing accepted multiplies the pause by this. */
    static final int PAUSE_GROWTH = 4;
    /** The longest pause: with every draft rejected, one draft of the floor length per {@code MAX_PAUSE + 1} steps. */
    static final int MAX_PAUSE = 64;

    /** What it waits for before it takes a cached prefix; null when it does not wait. */
    Waiting waiting;
    /** Of the reused prompt tokens, those restored from the host prompt cache. */
    int restored;

    private boolean decoding;
    /** Prompt tokens computed, in flight or reused: the next one to put in a batch is {@code prompt[prefilled]}. */
    int prefilled;

    private int reused;
    private int generated;
    /** The last token sampled, which the next step decodes. */
    int lastToken;

    private long firstTokenNanos;

    // This step's batch: where the logits to sample from are (-1: none), and the prompt positions scored.
    int batchIndex = -1;
    int scoreIndex;
    int scorePosition;
    int scoreCount;

    /**
     * @param sampler     its sampler chain, which it closes when it ends
     * @param slotContext the cells of the slot it runs in
     */
    ActiveRequest(
            Generation generation, TokenSampler sampler, InferenceContext context, Vocabulary vocab, int slotContext) {
        this(generation, sampler, context, vocab, slotContext, Speculation.OFF, null);
    }

    /**
     * @param speculation how it drafts (the request's own, or its engine's)
     * @param synthetic   its generator of benchmark-only synthetic acceptance; null for real verification
     */
    ActiveRequest(
            Generation generation,
            TokenSampler sampler,
            InferenceContext context,
            Vocabulary vocab,
            int slotContext,
            Speculation speculation,
            Random synthetic) {
        this.speculation = speculation;
        this.synthetic = synthetic;
        this.draft = new int[speculation.draftMax()];
        this.draftAllowed = Math.min(speculation.draftMax(), Math.max(FIRST_DRAFT, draftFloor()));
        this.generation = generation;
        this.request = generation.request();
        this.prompt = request.prompt();
        this.sampler = sampler;
        this.context = context;
        this.vocab = vocab;
        this.stops = new StopMatcher(request.stops());
        int room = slotContext - prompt.length;
        this.limit = request.maxTokens() > 0 ? Math.min(request.maxTokens(), room) : room;
        this.startNanos = System.nanoTime();
        this.logprobs = request.logprobs() >= 0 ? new ArrayList<>() : null;
        this.promptScores = request.scorePrompt() ? new ArrayList<>() : null;
    }

    /** Whether it scores its prompt (and has not sent the scores yet): then every prompt position needs logits. */
    boolean scoring() {
        return promptScores != null;
    }

    /** Whether its whole prompt is in and it generates, one token per step. */
    boolean decoding() {
        return decoding;
    }

    /** Prompt tokens taken from the cache instead of computed. */
    int reused() {
        return reused;
    }

    /** Tokens generated so far. */
    int generated() {
        return generated;
    }

    /**
     * The most tokens it may draft this step: what its drafts so far allow (none while it pauses after
     * rejected drafts, see {@link #verified}), and, as a step yields at most its draft plus one token,
     * never more than its limit leaves minus one (llama-server's {@code n_remaining - 1}).
     */
    int draftRoom() {
        return speculation.enabled() && coolDown == 0 ? Math.min(draftAllowed, limit - generated - 1) : 0;
    }

    /** The shortest draft it may be cut to: {@code draftMin}, and at least one token. */
    private int draftFloor() {
        return Math.max(1, speculation.draftMin());
    }

    /**
     * Counts a verified draft of {@code drafted} tokens of which {@code accepted} were, and sets how long
     * its next draft may be: twice as long when all were accepted (up to {@code draftMax}), twice the
     * accepted ones when some were, half as long when none was; from the second draft in a row with
     * none accepted, it also skips drafting for a pause that grows by {@value #PAUSE_GROWTH} times
     * each time up to {@value #MAX_PAUSE} steps. An accepted token ends the pauses' growth.
     */
    void verified(int drafted, int accepted) {
        draftTokens += drafted;
        draftAccepted += accepted;
        int max = speculation.draftMax();
        if (accepted > 0) {
            draftMisses = 0;
            nextPause = FIRST_PAUSE;
            draftAllowed = accepted == drafted
                    ? Math.min(max, draftAllowed * 2)
                    : Math.clamp(2L * accepted, draftFloor(), max);
            return;
        }
        draftAllowed = Math.max(draftFloor(), draftAllowed / 2);
        if (++draftMisses >= 2) {
            coolDown = nextPause;
            nextPause = Math.min(MAX_PAUSE, nextPause * PAUSE_GROWTH);
        }
    }

    /** The first {@code n} prompt tokens are in its slot's cache already: prefill starts after them. */
    void reuse(int n) {
        prefilled = n;
        reused = n;
    }

    /** The whole prompt is in: from now on, one token per step. */
    void startDecoding() {
        decoding = true;
    }

    /** Sends the prompt's scores, if it asked for them: the first event, before any text. */
    void sendPromptScores() {
        if (promptScores != null) {
            generation.emit(new GenerationEvent.PromptLogprobs(promptScores));
            promptScores = null;
        }
    }

    /**
     * Scores the prompt tokens this step computed: the logits at position {@code p} give the
     * log-probability of the prompt's token {@code p + 1}. The last position's logits are the
     * first sampled token's, scored by {@link #sampled}.
     *
     * @throws ForgeException when the backend cannot give them: this request's failure
     */
    void scorePromptTokens() {
        int top = request.logprobs();
        int n = scoreCount;
        scoreCount = 0;
        for (int k = 0; k < n; k++) {
            int next = scorePosition + k + 1;
            if (next >= prompt.length) {
                break;
            }
            promptScores.add(entry(prompt[next], logprobs(scoreIndex + k, prompt[next], top)));
        }
    }

    /**
     * Takes the token sampled from this step's logits: emits the text it completes, and says whether
     * the request ends.
     *
     * @param now when the step's decode ended
     * @return why the request ends, or {@code null} while it goes on
     * @throws ForgeException when its log-probabilities cannot be read: this request's failure
     */
    FinishReason sampled(int token, long now) {
        generated++;
        if (draftLength == 0 && coolDown > 0) {
            coolDown--; // a step without a draft: one step of the pause is over
        }
        if (firstTokenNanos == 0) {
            firstTokenNanos = now;
        }
        boolean endOfGeneration =
                vocab.isEndOfGeneration(token) || request.stopTokens().contains(token);
        if (endOfGeneration && !request.ignoreEos()) {
            generated--; // the end token is not part of the completion
            return FinishReason.STOP;
        }
        if (logprobs != null) {
            logprobs.add(entry(token, logprobs(batchIndex, token, request.logprobs())));
        }
        String text = stops.push(utf8.push(vocab.piece(token, false)));
        if (!text.isEmpty()) {
            generation.emit(new GenerationEvent.Text(text, 1, drainLogprobs()));
        }
        if (stops.stopped()) {
            return FinishReason.STOP;
        }
        if (generated >= limit) {
            return FinishReason.LENGTH;
        }
        lastToken = token;
        return null;
    }

    /**
     * Ends the request: emits the text still held back (not when cancelled), closes the sampler and
     * returns the timings for its {@link GenerationEvent.Done}.
     */
    Timings end(FinishReason reason) {
        if (reason != FinishReason.CANCELLED) {
            String rest = stops.push(utf8.flush());
            rest += stops.flush();
            if (!rest.isEmpty()) {
                generation.emit(new GenerationEvent.Text(rest, 0, drainLogprobs()));
            }
        }
        long end = System.nanoTime();
        double queueMs = (startNanos - generation.submittedNanos()) / 1e6;
        double promptMs = firstTokenNanos > 0 ? (firstTokenNanos - startNanos) / 1e6 : (end - startNanos) / 1e6;
        double ttftMs = firstTokenNanos > 0 ? (firstTokenNanos - generation.submittedNanos()) / 1e6 : 0;
        double decodeMs = firstTokenNanos > 0 ? (end - firstTokenNanos) / 1e6 : 0;
        Timings timings = new Timings(
                queueMs,
                prompt.length,
                reused,
                promptMs,
                ttftMs,
                Math.max(0, generated),
                decodeMs,
                draftTokens,
                draftAccepted);
        sampler.close();
        return timings;
    }

    /** Frees the sampler of a request that failed. */
    void close() {
        sampler.close();
    }

    /** The backend's log-probabilities at {@code batchIndex}; a backend without them fails this request. */
    private TokenLogprobs logprobs(int batchIndex, int token, int top) {
        try {
            return context.logprobs(batchIndex, token, top);
        } catch (UnsupportedOperationException e) {
            throw new ForgeException(e.getMessage(), e);
        }
    }

    private TokenLogprob entry(int token, TokenLogprobs lp) {
        List<TokenLogprob> alternatives = new ArrayList<>(lp.top().size());
        for (TokenLogprobs.Candidate c : lp.top()) {
            alternatives.add(new TokenLogprob(vocab.piece(c.id(), true), c.logprob(), List.of()));
        }
        return new TokenLogprob(vocab.piece(token, true), lp.token().logprob(), alternatives);
    }

    private List<TokenLogprob> drainLogprobs() {
        if (logprobs == null || logprobs.isEmpty()) {
            return List.of();
        }
        List<TokenLogprob> out = List.copyOf(logprobs);
        logprobs.clear();
        return out;
    }

    /** The stop string that ended this request, else empty. */
    String stopSequence() {
        return stops.matched();
    }
}
