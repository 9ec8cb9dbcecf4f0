package forge.backend.llamacpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.sampler.SamplingParams;
import forge.runtime.engine.Engine;
import forge.runtime.engine.EngineSnapshot;
import forge.runtime.engine.Generation;
import forge.runtime.engine.GenerationEvent;
import forge.runtime.engine.GenerationRequest;
import forge.runtime.engine.TokenLogprob;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * What the speculative-decoding tests compare: each request's output (text, log-probabilities
 * when asked, end), its drafted and accepted tokens, and the engine's counters at the end.
 *
 * @param outputs  each request's text, then {@code " | "}, its finish reason, completion tokens and stop sequence
 * @param drafts   each request's {@code {drafted, accepted}} tokens, from its timings
 * @param snapshot the engine's counters after the last request ended
 */
record SpeculativeRun(List<String> outputs, List<int[]> drafts, EngineSnapshot snapshot) {

    /** How a test runs requests on an engine of its own: submitted together, each one's output collected. */
    @FunctionalInterface
    interface Runner {
        SpeculativeRun run(List<GenerationRequest> requests) throws Exception;
    }

    /**
     * The requests the speculative-decoding tests submit together: greedy, seeded, one that stops
     * at a string that greedy decoding of {@code stopText} writes (found by a first run of that
     * prompt through {@code plain}), and one under a grammar.
     *
     * @param prompt        tokenizes a text as the test's model does
     * @param code          the greedy request's text; the seeded one's is it and {@code " int"}
     * @param stopText      the stopping request's text
     * @param maxTokens     the most tokens each request but the grammar's writes
     * @param grammarTokens the most tokens the grammar's request writes
     * @param plain         runs requests without speculation
     */
    static List<GenerationRequest> mixed(
            Function<String, int[]> prompt,
            String code,
            String stopText,
            int maxTokens,
            int grammarTokens,
            Runner plain)
            throws Exception {
        String written = plain.run(List.of(greedy("probe", prompt.apply(stopText), maxTokens)))
                .outputs()
                .getFirst();
        int middle = written.indexOf(" | ") / 2;
        String word = written.substring(middle, middle + 2);
        SamplingParams seeded =
                SamplingParams.builder().temperature(0.7f).seed(42).build();
        SamplingParams grammar = SamplingParams.GREEDY.toBuilder()
                .grammar("root ::= ([a-z] | \" \")+")
                .build();
        return List.of(
                greedy("greedy", prompt.apply(code), maxTokens),
                request("seeded", prompt.apply(code + " int"), seeded, maxTokens, List.of()),
                request("stop", prompt.apply(stopText), SamplingParams.GREEDY, maxTokens, List.of(word)),
                request("grammar", prompt.apply("Repeat: abab abab abab ab"), grammar, grammarTokens, List.of()));
    }

    /** A greedy request without stop strings, writing past end-of-generation tokens. */
    static GenerationRequest greedy(String id, int[] prompt, int maxTokens) {
        return request(id, prompt, SamplingParams.GREEDY, maxTokens, List.of());
    }

    /** A request writing past end-of-generation tokens, so that each writes as long as the others. */
    static GenerationRequest request(
            String id, int[] prompt, SamplingParams sampling, int maxTokens, List<String> stops) {
        return new GenerationRequest(id, prompt, sampling, maxTokens, stops, Set.of(), true);
    }

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
