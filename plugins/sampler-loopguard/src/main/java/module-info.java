/**
 * The {@code loop_guard} sampler stage: small local models fall into loops (the same line, the
 * same few words, again and again), and repetition penalties, which punish every token seen
 * before, also punish the brackets, keywords and indentation that code must repeat. This stage
 * acts only on an exact repeat: when the last {@code n - 1} tokens, followed by some token, already
 * occurred {@code repeats - 1} times, that token is banned for this step, so the n-gram cannot
 * occur a {@code repeats}-th time. Anything else is left as it is.
 *
 * <p>A request turns it on by naming it in llama-server's {@code samplers}:
 * {@snippet lang=json :
 * {"samplers": ["penalties", "loop_guard", "top_k", "top_p", "min_p", "temperature"],
 *  "loop_guard_n": 12, "loop_guard_repeats": 4}
 * }
 *
 * @provides forge.api.sampler.SamplerProvider the {@code loop_guard} stage
 */
module forge.sampler.loopguard {
    requires forge.api;

    provides forge.api.sampler.SamplerProvider with
            forge.sampler.loopguard.LoopGuardProvider;
}
