package forge.runtime.engine;

import forge.api.backend.InferenceContext;
import forge.api.backend.TokenBatch;
import forge.api.backend.TokenLogprobs;
import forge.api.backend.TokenSampler;
import forge.api.backend.Vocabulary;
import forge.api.sampler.SamplingParams;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Draft-model drafting (llama-server's {@code --model-draft}, {@code draft-simple}): a second
 * context, of the draft model, with one sequence per slot of the target. Engine thread only.
 *
 * <p>Each draft sequence remembers the tokens its cells hold ({@link #held}). Before a slot drafts,
 * its sequence is brought in step with the slot's history (prompt, output, and the token just
 * sampled): the cells past the longest prefix both share are removed ({@code llama_memory_seq_rm},
 * which is how a rejected draft's cells go) and the rest is computed, at most a batch of tokens per
 * step over all slots, so that a long prompt never stalls the others (a slot still catching up
 * drafts nothing that step). Then the slots draft together, one draft decode per draft token, each
 * slot's next token the draft model's most likely one, until it has {@code draftMax}, the request's
 * room is used, or the token's probability among the ten likeliest (llama.cpp's {@code top_k 10}
 * draft sampler) is below {@code pMin}. The last draft token is not computed here: the target
 * computes it, and the next step's catch-up computes it here if it was accepted. So accepted
 * tokens are computed once by each model, and only rejected ones are removed.
 */
final class Drafter implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Drafter.class);

    /** llama.cpp's {@code SPEC_VOCAB_MAX_SIZE_DIFFERENCE}. */
    static final int MAX_VOCAB_DIFFERENCE = 128;
    /** llama.cpp's {@code SPEC_VOCAB_CHECK_START_TOKEN_ID}: the first ids may differ (control tokens). */
    static final int CHECK_FROM_TOKEN = 5;
    /** The draft sampler's candidates, as llama.cpp's {@code top_k 10}: the top token's probability is among these. */
    static final int TOP_K = 10;

    /** One slot's request for a draft this step. */
    static final class Job {
        final int slot;
        final int[] history;
        final int length;
        final int room;
        final int draftMin;
        final float pMin;
        final int[] out;
        int drafted;
        /** Where this step's logits of the job are in the draft batch. */
        int index;

        boolean going;

        /**
         * @param history  the slot's tokens, {@code history[0..length)}, the last one just sampled
         * @param room     the most tokens it may draft
         * @param out      where the draft goes
         */
        Job(int slot, int[] history, int length, int room, int draftMin, float pMin, int[] out) {
            this.slot = slot;
            this.history = history;
            this.length = length;
            this.room = room;
            this.draftMin = draftMin;
            this.pMin = pMin;
            this.out = out;
        }
    }

    private final InferenceContext context;
    private final ComputeGate gate;
    private final int slotContext;
    /** {@code held[s][0..heldCount[s])}: the tokens draft sequence {@code s}'s cells hold. */
    private final int[][] held;

    private final int[] heldCount;
    /** The most likely token, for drafts that need no probability ({@code pMin} 0). */
    private final TokenSampler greedy;

    private long decodes;

    /**
     * @param context     the draft model's context, {@code slots} sequences
     * @param slotContext the cells each draft sequence may fill
     */
    Drafter(InferenceContext context, ComputeGate gate, int slots, int slotContext) {
        this.context = context;
        this.gate = gate;
        this.slotContext = slotContext;
        this.held = new int[slots][slotContext];
        this.heldCount = new int[slots];
        this.greedy = context.sampler(SamplingParams.GREEDY);
    }

    /**
     * Why {@code draft} cannot draft for {@code target}, as llama.cpp's
     * {@code common_speculative_are_compatible} decides: the same kind of tokenizer, the same
     * BOS/EOS handling, vocabularies within {@value #MAX_VOCAB_DIFFERENCE} tokens of each other and
     * the same text for every token both have (from id {@value #CHECK_FROM_TOKEN}); empty when it can.
     */
    static Optional<String> incompatibility(Vocabulary target, Vocabulary draft) {
        if (!target.type().equals(draft.type())) {
            return Optional.of(
                    "its vocabulary type (" + draft.type() + ") is not the target's (" + target.type() + ")");
        }
        if (target.addsBos() != draft.addsBos()
                || (target.addsBos() && !target.bos().equals(draft.bos()))) {
            return Optional.of("its beginning-of-sequence token (added " + draft.addsBos() + ", " + draft.bos()
                    + ") is not the target's (added " + target.addsBos() + ", " + target.bos() + ")");
        }
        if (target.addsEos() != draft.addsEos()
                || (target.addsEos() && !target.eos().equals(draft.eos()))) {
            return Optional.of("its end-of-sequence token (added " + draft.addsEos() + ", " + draft.eos()
                    + ") is not the target's (added " + target.addsEos() + ", " + target.eos() + ")");
        }
        int difference = Math.abs(target.size() - draft.size());
        if (difference > MAX_VOCAB_DIFFERENCE) {
            return Optional.of("its vocabulary has " + draft.size() + " tokens and the target's " + target.size()
                    + ": more than " + MAX_VOCAB_DIFFERENCE + " apart");
        }
        int common = Math.min(target.size(), draft.size());
        for (int t = CHECK_FROM_TOKEN; t < common; t++) {
            if (!target.text(t).equals(draft.text(t))) {
                return Optional.of("its token " + t + " is '" + draft.text(t) + "' where the target's is '"
                        + target.text(t) + "'");
            }
        }
        return Optional.empty();
    }

    /** Draft decodes run so far (catch-up and drafting), for tests. */
    long decodes() {
        return decodes;
    }

    /**
     * Brings every job's draft sequence in step with its history and drafts for each; a job's
     * {@code drafted} says how many of {@code out} are its draft (0: none this step). A draft
     * decode that fails drafts nothing this step and forgets what the sequences held: the target
     * decodes on without drafts, and the next step starts the sequences over.
     */
    void draft(List<Job> jobs) {
        try {
            TokenBatch batch = context.batch();
            batch.clear();
            catchUp(jobs, batch);
            generate(jobs, batch);
        } catch (RuntimeException e) {
            LOG.warn("the draft model failed to draft ({}); this step decodes without drafts", e.getMessage());
            for (Job j : jobs) {
                j.drafted = 0;
                forget(j.slot);
            }
        }
    }

    /**
     * Removes what each sequence holds past its history's shared prefix, and puts the rest but the
     * history's last token in the batch: at most a batch over all jobs, leaving a place for each
     * job's last token, which the first draft decode computes with them.
     */
    private void catchUp(List<Job> jobs, TokenBatch batch) {
        int room = batch.capacity() - jobs.size();
        for (Job j : jobs) {
            int s = j.slot;
            // The last history token is decoded by the first draft decode, for its logits.
            int want = j.length - 1;
            int common = 0;
            int limit = Math.min(heldCount[s], want);
            while (common < limit && held[s][common] == j.history[common]) {
                common++;
            }
            if (common < heldCount[s]) {
                if (!context.removeTokens(s, common, -1)) {
                    context.removeTokens(s, 0, -1);
                    common = 0;
                }
                heldCount[s] = common;
            }
            while (heldCount[s] < want && batch.size() < room) {
                int token = j.history[heldCount[s]];
                batch.add(token, heldCount[s], s, false);
                held[s][heldCount[s]++] = token;
            }
            j.going = heldCount[s] == want;
        }
    }

    /** Drafts for every job in step, all in the same draft decodes (the first one with the catch-up). */
    private void generate(List<Job> jobs, TokenBatch batch) {
        for (Job j : jobs) {
            if (j.going) {
                int s = j.slot;
                int token = j.history[j.length - 1];
                j.index = batch.add(token, heldCount[s], s, true);
                held[s][heldCount[s]++] = token;
            }
        }
        while (batch.size() > 0) {
            decode();
            batch.clear();
            for (Job j : jobs) {
                if (!j.going) {
                    continue;
                }
                int token = next(j);
                if (token < 0) {
                    j.going = false;
                    continue;
                }
                j.out[j.drafted++] = token;
                int s = j.slot;
                if (j.drafted >= j.room || heldCount[s] >= slotContext) {
                    j.going = false; // the target computes it; it is computed here next step if accepted
                    continue;
                }
                j.index = batch.add(token, heldCount[s], s, true);
                held[s][heldCount[s]++] = token;
            }
        }
        for (Job j : jobs) {
            if (j.drafted < j.draftMin) {
                j.drafted = 0;
            }
        }
    }

    /** The draft model's next token for {@code j}, or -1 when its probability is below the job's minimum. */
    private int next(Job j) {
        if (j.pMin <= 0f) {
            return greedy.sample(j.index);
        }
        TokenLogprobs top = context.logprobs(j.index, 0, TOP_K);
        List<TokenLogprobs.Candidate> best = top.top();
        double first = best.getFirst().logprob();
        double sum = 0;
        for (TokenLogprobs.Candidate c : best) {
            sum += Math.exp(c.logprob() - first);
        }
        // The top token's probability after a softmax over the ten likeliest, as llama.cpp's draft sampler has it.
        return 1 / sum < j.pMin ? -1 : best.getFirst().id();
    }

    private void decode() {
        decodes++;
        gate.decode(context);
    }

    /** Forgets what draft sequence {@code s} holds (its cells removed). */
    void forget(int s) {
        try {
            context.removeTokens(s, 0, -1);
        } catch (RuntimeException e) {
            LOG.debug("could not clear draft sequence {}: {}", s, e.getMessage());
        }
        heldCount[s] = 0;
    }

    /** The draft context's threads may sleep until the next decode. */
    void idle() {
        context.idle();
    }

    /** Closes the draft sampler and the draft context. */
    @Override
    public void close() {
        try {
            greedy.close();
        } finally {
            context.close();
        }
    }
}
