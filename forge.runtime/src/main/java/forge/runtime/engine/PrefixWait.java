package forge.runtime.engine;

/**
 * The rules for waiting on another slot's prefill: when a wait is worth it, and when it is over.
 * Requests that arrive together with one system prompt then compute it once (llama-server
 * computes it once per slot). Pure: numbers in, a yes or no out.
 */
final class PrefixWait {

    private PrefixWait() {}

    /**
     * Whether a request should wait for another slot that is prefilling a prompt sharing
     * {@code gain} more tokens with it than any cache holds, while {@code leaderRemaining} of that
     * prompt are still to compute. Waiting delays the request by the leader's prefill; not waiting
     * computes the {@code gain} tokens twice, in a batch every active slot waits for. So: wait when
     * the gain is at least half of what the leader still computes. Measured on the bench model: an
     * 800-token shared system prompt (gain ~800) waits, editor requests whose prompts share only a
     * few tokens beyond what every slot already caches (gain ~2) do not, which had cost them a
     * whole step (TTFT p50 817 ms against llama-server's 468 ms with 8 clients).
     */
    static boolean worthWaiting(int gain, int leaderRemaining) {
        return gain > 0 && 2L * gain >= leaderRemaining;
    }

    /**
     * Whether a request waiting for a leader to compute {@code awaited} cells goes on: the leader's
     * slot has them, or it moved on (it decodes, so it computes no more of the prompt; or its
     * request ended, so its cells may be another request's soon). The waiting request then takes
     * what cache there is, without waiting again.
     *
     * @param leaderRunsIt   the leader's slot still runs the request that was waited for
     * @param leaderDecoding that request's whole prompt is in and it generates
     * @param leaderCached   the cells the leader's slot holds now
     * @param awaited        the cells the waiting request shares with the leader's prompt
     */
    static boolean isOver(boolean leaderRunsIt, boolean leaderDecoding, int leaderCached, int awaited) {
        return !leaderRunsIt || leaderDecoding || leaderCached >= awaited;
    }
}
