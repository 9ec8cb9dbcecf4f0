package forge.backend.llamacpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.runtime.engine.Engine;
import forge.runtime.engine.EngineSnapshot;
import forge.runtime.engine.Generation;
import forge.runtime.engine.GenerationEvent;
import forge.runtime.engine.GenerationRequest;
import forge.runtime.engine.TokenLogprob;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the speculative-decoding tests compare: each request's output (text, log-probabilities
 * when asked, end), its drafted and accepted tokens, and the engine's counters at the end.
 *
 * @param outputs  each request's text, then {@code " | "}, its finish reason, completion tokens and stop sequence
 * @param drafts   each request's {@code {drafted, accepted}} tokens, from its timings
 * @param snapshot the engine's counters after the last request ended
 */
record SpeculativeRun(List<String> outputs, List<int[]> drafts, EngineSnapshot snapshot) {

    /** Submits every request at once (so that the slots are busy together) and collects each one's output. */
    static SpeculativeRun of(Engine engine, List<GenerationRequest> requests) throws Exception {
        List<Generation> generations = new ArrayList<>();
        for (GenerationRequest r : requests) {
            generations.add(engine.submit(r));
        }
        List<String> outputs = new ArrayList<>();
        List<int[]> drafts = new ArrayList<>();
        for (Generation g : generations) {
            StringBuilder text = new StringBuilder();
            GenerationEvent e;
            while ((e = g.next(60, TimeUnit.SECONDS)) instanceof GenerationEvent.Text t) {
                text.append(t.text());
                for (TokenLogprob p : t.logprobs()) {
                    text.append(String.format("[%.3f]", p.logprob()));
                }
            }
            GenerationEvent.Done done = assertInstanceOf(GenerationEvent.Done.class, e, String.valueOf(e));
            outputs.add(
                    text + " | " + done.reason() + " " + done.timings().completionTokens() + " " + done.stopSequence());
            drafts.add(new int[] {done.timings().draftTokens(), done.timings().draftAccepted()});
        }
        return new SpeculativeRun(outputs, drafts, engine.snapshot());
    }

    /**
     * Every one of {@code requests} (this run's, in order) drafted something, so that a comparison
     * of outputs covers drafting for each; and the snapshot's draft counters are the sums of the
     * requests' timings.
     */
    void assertEachDraftedAndCounted(List<GenerationRequest> requests) {
        for (int i = 0; i < requests.size(); i++) {
            int[] d = drafts.get(i);
            assertTrue(d[0] > 0, requests.get(i).id() + " drafted nothing: the comparison would not cover it");
        }
        int[] timed = {0, 0};
        drafts.forEach(d -> {
            timed[0] += d[0];
            timed[1] += d[1];
        });
        assertEquals(snapshot.draftTokens(), timed[0], "the snapshot counts what the requests' timings say");
        assertEquals(snapshot.draftAccepted(), timed[1]);
    }
}
