package forge.runtime.engine;

import forge.api.backend.AdapterScale;
import forge.api.backend.MediaTokens;
import forge.api.backend.TokenLogprobs;
import forge.api.sampler.SamplingParams;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One sequence to generate.
 *
 * @param id         the request's id, shown in logs and {@code /slots}
 * @param prompt     the prompt's tokens
 * @param sampling   how to choose tokens
 * @param maxTokens  the most tokens to generate; -1 means until the slot's context is full
 * @param stops      stop strings: generation ends before any of them, which are never emitted
 * @param stopTokens token ids that end generation besides the vocabulary's end-of-generation
 *                   tokens (a template's end-of-turn tokens)
 * @param ignoreEos  keep generating past end-of-generation tokens (benchmarks)
 * @param logprobs   -1 for none (the default, and free); otherwise every generated token's
 *                   log-probability comes with its {@link GenerationEvent.Text}, with this many
 *                   most likely alternatives (0 to {@link TokenLogprobs#MAX_TOP})
 * @param scorePrompt also the prompt's tokens, each given the ones before it, in one
 *                   {@link GenerationEvent.PromptLogprobs} before any text (what
 *                   {@code /v1/completions} with {@code echo} and {@code logprobs} returns, and
 *                   evaluation harnesses use to score a text). Needs {@code logprobs >= 0}. The
 *                   whole prompt is computed again, with logits at every position: no cached
 *                   prefix is reused for it.
 * @param speculation n-gram speculative decoding for this request; {@code null} for the engine's
 *                    ({@link EngineConfig#speculation()}). Greedy output is the same token for
 *                    token either way, sampled output the same in distribution.
 * @param adapters    the LoRA adapters of the model applied to this request, each at its scale
 *                    (an adapter at scale 0 is left out: it changes nothing). Requests with
 *                    different sets never share a decode, nor each other's cached cells.
 * @param media       the prompt's media, when it has any ({@code prompt} is then its
 *                    {@link MediaTokens#tokens()}: text ids and a run of placeholders per media
 *                    chunk); null for a text prompt. The engine holds a reference from admission
 *                    to the request's end; the maker closes its own.
 */
public record GenerationRequest(
        String id,
        int[] prompt,
        SamplingParams sampling,
        int maxTokens,
        List<String> stops,
        Set<Integer> stopTokens,
        boolean ignoreEos,
        int logprobs,
        boolean scorePrompt,
        Speculation speculation,
        List<AdapterScale> adapters,
        MediaTokens media) {

    /**
     * A text request without log-probabilities, speculating as its engine does, without LoRA
     * adapters; the withers below add what a request asks beyond that.
     */
    public GenerationRequest(
            String id,
            int[] prompt,
            SamplingParams sampling,
            int maxTokens,
            List<String> stops,
            Set<Integer> stopTokens,
            boolean ignoreEos) {
        this(id, prompt, sampling, maxTokens, stops, stopTokens, ignoreEos, -1, false, null, List.of(), null);
    }

    public GenerationRequest {
        if (logprobs < -1 || logprobs > TokenLogprobs.MAX_TOP) {
            throw new IllegalArgumentException(
                    "logprobs must be -1 (off) or 0 to " + TokenLogprobs.MAX_TOP + ": " + logprobs);
        }
        if (scorePrompt && logprobs < 0) {
            throw new IllegalArgumentException("scoring the prompt needs logprobs >= 0");
        }
        Objects.requireNonNull(id);
        Objects.requireNonNull(prompt);
        if (prompt.length == 0) {
            throw new IllegalArgumentException("the prompt is empty");
        }
        Objects.requireNonNull(sampling);
        if (maxTokens < -1 || maxTokens == 0) {
            throw new IllegalArgumentException("max_tokens must be positive: " + maxTokens);
        }
        stops = List.copyOf(stops);
        stopTokens = Set.copyOf(stopTokens);
        adapters = adapters.stream().filter(a -> a.scale() != 0).toList();
        if (media != null) {
            if (scorePrompt) {
                throw new IllegalArgumentException("a prompt with media cannot be scored");
            }
            if (MediaTokens.isPlaceholder(prompt[prompt.length - 1])) {
                // its last token's logits are sampled from, and a media chunk has none
                throw new IllegalArgumentException("a prompt cannot end with media");
            }
        } else {
            for (int token : prompt) {
                if (MediaTokens.isPlaceholder(token)) {
                    throw new IllegalArgumentException("a media placeholder in a prompt without media");
                }
            }
        }
    }

    /** This request with log-probabilities: {@code -1} for none, else this many alternatives. */
    public GenerationRequest withLogprobs(int logprobs) {
        return withOptions(logprobs, scorePrompt, speculation, adapters);
    }

    /** This request scoring its prompt or not; scoring needs log-probabilities ({@link #withLogprobs}) first. */
    public GenerationRequest withScorePrompt(boolean scorePrompt) {
        return withOptions(logprobs, scorePrompt, speculation, adapters);
    }

    /** This request with its own n-gram speculation; {@code null} for the engine's. */
    public GenerationRequest withSpeculation(Speculation speculation) {
        return withOptions(logprobs, scorePrompt, speculation, adapters);
    }

    /** This request with these LoRA adapters applied. */
    public GenerationRequest withAdapters(List<AdapterScale> adapters) {
        return withOptions(logprobs, scorePrompt, speculation, adapters);
    }

    /**
     * Every wither goes through this one copy of the canonical argument list, and the result is
     * validated there as any request is.
     */
    private GenerationRequest withOptions(
            int logprobs, boolean scorePrompt, Speculation speculation, List<AdapterScale> adapters) {
        return new GenerationRequest(
                id,
                prompt,
                sampling,
                maxTokens,
                stops,
                stopTokens,
                ignoreEos,
                logprobs,
                scorePrompt,
                speculation,
                adapters,
                media);
    }

    /** Whether the prompt has media chunks. */
    public boolean hasMedia() {
        return media != null && !media.media().isEmpty();
    }
}
