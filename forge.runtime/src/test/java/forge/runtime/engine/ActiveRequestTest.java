package forge.runtime.engine;

import static forge.runtime.engine.FakeVocabulary.A;
import static forge.runtime.engine.FakeVocabulary.END_OF_TURN;
import static forge.runtime.engine.FakeVocabulary.EOS;
import static forge.runtime.engine.FakeVocabulary.E_ACUTE_1;
import static forge.runtime.engine.FakeVocabulary.E_ACUTE_2;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.sampler.SamplingParams;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** One request's decode state: the text it releases, when it ends, its log-probabilities and timings. */
class ActiveRequestTest {

    private final FakeContext context = new FakeContext(64, 1, 8);
    private Generation generation;
    private int position;

    private ActiveRequest active(GenerationRequest request, int slotContext) {
        generation = new Generation(request);
        return new ActiveRequest(
                generation, context.sampler(request.sampling()), context, new FakeVocabulary(), slotContext);
    }

    private ActiveRequest active(int maxTokens, List<String> stops) {
        return active(
                new GenerationRequest(
                        "r", new int[] {A, A + 1}, SamplingParams.GREEDY, maxTokens, stops, Set.of(), false),
                32);
    }

    /** One decode with logits at batch index 0, as the scheduler's step makes before a sample. */
    private void logits(ActiveRequest r) {
        context.batch().clear();
        r.batchIndex = context.batch().add(A, position++, 0, true);
        context.decode();
    }

    private List<GenerationEvent> events() throws InterruptedException {
        List<GenerationEvent> events = new ArrayList<>();
        for (GenerationEvent e = generation.next(0, TimeUnit.SECONDS);
                e != null;
                e = generation.next(0, TimeUnit.SECONDS)) {
            events.add(e);
        }
        return events;
    }

    @Test
    void aCharacterSplitAcrossTokensIsSentWhole() throws Exception {
        ActiveRequest r = active(10, List.of());
        assertNull(r.sampled(E_ACUTE_1, 1));
        assertEquals(List.of(), events());
        assertNull(r.sampled(E_ACUTE_2, 2));
        assertEquals(List.of(new GenerationEvent.Text("é", 1)), events());
        assertEquals(E_ACUTE_2, r.lastToken, "the next step decodes it");
    }

    @Test
    void aStopStringAcrossTokensEndsTheRequestAndIsNeverSent() throws Exception {
        ActiveRequest r = active(10, List.of("bc"));
        assertNull(r.sampled(A, 1));
        assertNull(r.sampled(A + 1, 2));
        assertEquals(
                List.of(new GenerationEvent.Text("a", 1)), events(), "b may be the start of the stop string: held");
        assertEquals(FinishReason.STOP, r.sampled(A + 2, 3));
        r.end(FinishReason.STOP);
        assertEquals(List.of(), events());
    }

    @Test
    void heldBackTextIsSentWhenTheRequestEndsOtherwiseButNotWhenCancelled() throws Exception {
        ActiveRequest r = active(2, List.of("bc"));
        assertNull(r.sampled(A, 1));
        assertEquals(FinishReason.LENGTH, r.sampled(A + 1, 2));
        r.end(FinishReason.LENGTH);
        assertEquals(List.of(new GenerationEvent.Text("a", 1), new GenerationEvent.Text("b", 0)), events());

        ActiveRequest cancelled = active(5, List.of("bc"));
        cancelled.sampled(A, 1);
        cancelled.sampled(A + 1, 2);
        cancelled.sampled(E_ACUTE_1, 3);
        cancelled.end(FinishReason.CANCELLED);
        assertEquals(
                List.of(new GenerationEvent.Text("a", 1)),
                events(),
                "neither a possible stop string nor half a character");
    }

    @Test
    void itGeneratesAtMostMaxTokensOrWhatTheSlotHasLeft() {
        ActiveRequest three = active(3, List.of());
        assertNull(three.sampled(A, 1));
        assertNull(three.sampled(A, 2));
        assertEquals(FinishReason.LENGTH, three.sampled(A, 3));

        int[] prompt = {A, A, A, A};
        ActiveRequest untilFull =
                active(new GenerationRequest("r", prompt, SamplingParams.GREEDY, -1, List.of(), Set.of(), false), 10);
        ActiveRequest beyond =
                active(new GenerationRequest("r", prompt, SamplingParams.GREEDY, 100, List.of(), Set.of(), false), 10);
        for (ActiveRequest r : List.of(untilFull, beyond)) {
            for (int i = 1; i < 6; i++) {
                assertNull(r.sampled(A, i));
            }
            assertEquals(FinishReason.LENGTH, r.sampled(A, 6), "10 cells, 4 of them the prompt's");
        }
    }

    @Test
    void anEndTokenEndsItWithoutCountingUnlessEndsAreIgnored() throws Exception {
        ActiveRequest r = active(10, List.of());
        r.sampled(A, 1);
        assertEquals(FinishReason.STOP, r.sampled(EOS, 2));
        assertEquals(1, r.end(FinishReason.STOP).completionTokens());

        ActiveRequest turn = active(
                new GenerationRequest(
                        "t", new int[] {A}, SamplingParams.GREEDY, 10, List.of(), Set.of(END_OF_TURN), false),
                32);
        assertEquals(FinishReason.STOP, turn.sampled(END_OF_TURN, 1), "a template's end of turn");
        ActiveRequest other = active(10, List.of());
        assertNull(other.sampled(END_OF_TURN, 1), "only for requests that name it");

        ActiveRequest bench = active(
                new GenerationRequest(
                        "b", new int[] {A}, SamplingParams.GREEDY, 3, List.of(), Set.of(END_OF_TURN), true),
                32);
        assertNull(bench.sampled(EOS, 1));
        assertNull(bench.sampled(END_OF_TURN, 2));
        assertEquals(FinishReason.LENGTH, bench.sampled(A, 3));
        assertEquals(3, bench.end(FinishReason.LENGTH).completionTokens());
        List<GenerationEvent> events = events();
        assertEquals(new GenerationEvent.Text("a", 1), events.getLast(), "end tokens render as nothing");
    }

    @Test
    void logprobsComeWithTheTextThatReleasesTheirTokens() throws Exception {
        ActiveRequest r = active(
                new GenerationRequest("l", new int[] {A}, SamplingParams.GREEDY, 10, List.of(), Set.of(), false)
                        .withLogprobs(2),
                32);
        logits(r);
        r.sampled(E_ACUTE_1, 1);
        assertEquals(List.of(), events());
        logits(r);
        r.sampled(E_ACUTE_2, 2);
        GenerationEvent.Text text = assertInstanceOf(GenerationEvent.Text.class, events().getFirst());
        assertEquals("é", text.text());
        assertEquals(2, text.logprobs().size(), "the held-back token's entry comes along");
        assertEquals(
                List.of(-0.25f, -0.25f),
                text.logprobs().stream().map(TokenLogprob::logprob).toList());
        assertEquals(
                List.of("a", "b"),
                text.logprobs().getFirst().top().stream()
                        .map(TokenLogprob::token)
                        .toList());
        assertEquals(List.of("logprobs @0 3 top 2", "logprobs @0 4 top 2"), context.calls("logprobs"));
        ActiveRequest plain = active(10, List.of());
        plain.sampled(A, 1);
        assertTrue(assertInstanceOf(GenerationEvent.Text.class, events().getFirst())
                .logprobs()
                .isEmpty());
        assertEquals(2, context.calls("logprobs").size(), "not asked, not computed");
    }

    @Test
    void promptScoresAreSentOnceBeforeAnyText() throws Exception {
        ActiveRequest r = active(new GenerationRequest(
                        "s", new int[] {A, A + 1, A + 2}, SamplingParams.GREEDY, 10, List.of(), Set.of(), false)
                .withLogprobs(0)
                .withScorePrompt(true));
        assertTrue(r.scoring());
        context.batch().clear();
        r.scoreIndex = context.batch().add(A, 0, 0, true);
        context.batch().add(A + 1, 1, 0, true);
        r.batchIndex = context.batch().add(A + 2, 2, 0, true);
        r.scorePosition = 0;
        r.scoreCount = 3;
        context.decode();
        r.scorePromptTokens();
        assertEquals(0, r.scoreCount);
        assertEquals(
                List.of("logprobs @0 11 top 0", "logprobs @1 12 top 0"),
                context.calls("logprobs"),
                "position p scores token p + 1; the last position's logits are the first sampled token's");
        r.startDecoding();
        r.sendPromptScores();
        assertFalse(r.scoring());
        r.sendPromptScores();
        List<GenerationEvent> events = events();
        assertEquals(1, events.size());
        assertEquals(
                List.of("b", "c"),
                assertInstanceOf(GenerationEvent.PromptLogprobs.class, events.getFirst()).tokens().stream()
                        .map(TokenLogprob::token)
                        .toList());
    }

    private ActiveRequest active(GenerationRequest request) {
        return active(request, 32);
    }

    @Test
    void itsTimingsCountWhatWasReusedAndGeneratedAndItClosesItsSampler() throws Exception {
        ActiveRequest r = active(new GenerationRequest(
                "t", new int[] {A, A, A, A}, SamplingParams.GREEDY, 2, List.of(), Set.of(), false));
        r.reuse(3);
        assertEquals(3, r.prefilled);
        assertEquals(1, context.openSamplers());
        long now = System.nanoTime();
        r.sampled(A, now);
        r.sampled(A, now + 1_000_000);
        Timings t = r.end(FinishReason.LENGTH);
        assertEquals(new Timings(t.queueMs(), 4, 3, t.promptMs(), t.firstTokenMs(), 2, t.decodeMs(), 0, 0), t);
        assertTrue(
                t.queueMs() >= 0 && t.promptMs() >= 0 && t.firstTokenMs() >= t.promptMs() && t.decodeMs() >= 0,
                t.toString());
        assertEquals(0, context.openSamplers());
    }

    /** A request that drafts with these settings, room for 1000 tokens. */
    private ActiveRequest drafting(Speculation speculation) {
        GenerationRequest request = new GenerationRequest(
                "r", new int[] {A, A + 1}, SamplingParams.GREEDY, 1000, List.of(), Set.of(), false);
        generation = new Generation(request);
        return new ActiveRequest(
                generation,
                context.sampler(request.sampling()),
                context,
                new FakeVocabulary(),
                2000,
                speculation,
                null);
    }

    /** Steps without a draft (the scheduler's draftLength 0): each samples one token. */
    private static void stepsWithoutDraft(ActiveRequest r, int n) {
        for (int i = 0; i < n; i++) {
            r.draftLength = 0;
            assertNull(r.sampled(A, 1));
        }
    }

    /** How many steps it skips drafting from now: steps without a draft until it may draft again. */
    private static int pause(ActiveRequest r) {
        int steps = 0;
        while (r.draftRoom() == 0) {
            stepsWithoutDraft(r, 1);
            steps++;
        }
        return steps;
    }

    @Test
    void acceptedDraftsGrowToTheMaximumAndPartlyAcceptedOnesFollowWhatWasAccepted() {
        ActiveRequest r = drafting(new Speculation(2, 48, 0));
        assertEquals(ActiveRequest.FIRST_DRAFT, r.draftRoom(), "a first draft of 8, not 48");
        r.verified(8, 8);
        assertEquals(16, r.draftRoom());
        r.verified(16, 16);
        assertEquals(32, r.draftRoom());
        r.verified(32, 32);
        assertEquals(48, r.draftRoom());
        r.verified(48, 48);
        assertEquals(48, r.draftRoom(), "at the maximum it stays");
        r.verified(48, 5);
        assertEquals(10, r.draftRoom(), "twice what was accepted");
        r.verified(10, 10);
        assertEquals(20, r.draftRoom());
        assertEquals(8 + 16 + 32 + 48 + 48 + 10, r.draftTokens);
        assertEquals(8 + 16 + 32 + 48 + 5 + 10, r.draftAccepted);

        ActiveRequest small = drafting(new Speculation(2, 3, 0));
        assertEquals(3, small.draftRoom(), "a maximum under the first draft's is the first draft");
    }

    @Test
    void draftsWithNothingAcceptedHalveTheNextThenPauseForLongerEachTimeUntilOneIsAccepted() {
        ActiveRequest r = drafting(new Speculation(2, 48, 2));
        r.verified(8, 0);
        assertEquals(4, r.draftRoom(), "one miss halves, and never pauses");
        r.verified(4, 0);
        assertEquals(4, pause(r), "the second miss in a row pauses");
        assertEquals(2, r.draftRoom(), "halved down to the minimum, 2");
        r.verified(2, 0);
        assertEquals(16, pause(r));
        assertEquals(2, r.draftRoom());
        r.verified(2, 0);
        assertEquals(ActiveRequest.MAX_PAUSE, pause(r));
        r.verified(2, 0);
        assertEquals(ActiveRequest.MAX_PAUSE, pause(r), "the longest pause");
        r.verified(2, 1);
        assertEquals(2, r.draftRoom(), "an accepted token ends the pauses");
        r.verified(2, 0);
        assertEquals(2, r.draftRoom(), "and a single miss does not pause again");
        r.verified(2, 0);
        assertEquals(ActiveRequest.FIRST_PAUSE, pause(r), "the pauses start over");

        // A step with a draft is not a step of a pause: only steps without one count down.
        r.verified(2, 0);
        r.draftLength = 2;
        r.sampled(A, 1);
        assertEquals(16, pause(r));
    }
}
