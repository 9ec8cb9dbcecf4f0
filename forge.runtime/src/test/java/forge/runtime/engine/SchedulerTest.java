package forge.runtime.engine;

import static forge.runtime.engine.FakeVocabulary.A;
import static forge.runtime.engine.FakeVocabulary.prompt;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.BackendException;
import forge.api.ForgeException;
import forge.api.SamplingException;
import forge.api.backend.AdapterScale;
import forge.api.backend.LoraAdapter;
import forge.api.sampler.SamplingParams;
import forge.api.template.ChatImage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The scheduler step by step against a {@link FakeContext}: which slot and which cached prefix a
 * request gets, copies across slots, waiting for another slot's prefill, chunked prefill and
 * decoding, the ways a request ends, and failures contained to the requests they concern. The
 * exact calls it makes are asserted; the fake fails the test where llama.cpp would misbehave.
 */
class SchedulerTest extends SchedulerFixture {

    private void scheduler(int slots, int slotContext, int batch) {
        scheduler(new FakeContext(slots * slotContext, slots, batch), slots, slotContext, PromptCache.OFF, null);
    }

    /** Runs a request to its end, so that its slot caches the prompt, then forgets the calls it made. */
    private void cache(int[] prompt) {
        start("earlier", prompt, 1);
        finishAll();
        context.clearCalls();
    }

    /** Steps until slot {@code id} decodes. */
    private void untilDecoding(int id) {
        for (int i = 0; snapshot().slots().get(id).state() != SlotState.DECODE; i++) {
            assertTrue(i < 1000, "slot " + id + " never decodes");
            scheduler.step();
        }
    }

    /** The text of a generation's events. */
    private static String text(List<GenerationEvent> events) {
        StringBuilder b = new StringBuilder();
        for (GenerationEvent e : events) {
            if (e instanceof GenerationEvent.Text t) {
                b.append(t.text());
            }
        }
        return b.toString();
    }

    private static int[] concat(int[] a, int... b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** Lines of the decodes that carry a token of {@code seq}. */
    private List<String> decodesOf(int seq) {
        return context.calls("decode").stream()
                .filter(l -> l.contains(" " + seq + "@"))
                .toList();
    }

    private static final String SYSTEM = "you are a careful assistant";

    // ------------------------------------------------------------------ LoRA adapters

    /** An adapter as the engine sees one: only its identity matters. */
    record FakeAdapter(String name) implements LoraAdapter {
        @Override
        public Path path() {
            return Path.of(name);
        }

        @Override
        public float alpha() {
            return 0;
        }
    }

    private static GenerationRequest request(String id, int[] prompt, int maxTokens, AdapterScale... adapters) {
        return new GenerationRequest(id, prompt, SamplingParams.GREEDY, maxTokens, List.of(), Set.of(), false)
                .withAdapters(List.of(adapters));
    }

    private static final AdapterScale X = new AdapterScale(new FakeAdapter("x"), 1f);
    private static final AdapterScale X_HALF = new AdapterScale(new FakeAdapter("x"), 0.5f);

    /**
     * Requests whose adapter sets differ never share a decode: each decode carries the tokens of one
     * set, applied just before it, and the sets take turns, so both requests progress.
     */
    @Test
    void requestsWithDifferentAdapterSetsAreNeverDecodedTogether() throws Exception {
        scheduler(3, 32, 16);
        start(request("plain", prompt("abcde"), 4));
        start(request("x", prompt("fghij"), 4, X));
        start(request("x2", prompt("klmno"), 4, X));
        finishAll();
        String applied = "adapters []";
        int switches = 0;
        for (String line : context.calls()) {
            if (line.startsWith("adapters")) {
                applied = line;
                switches++;
            } else if (line.startsWith("decode")) {
                boolean plain = line.contains(" 0@");
                boolean x = line.contains(" 1@") || line.contains(" 2@");
                assertFalse(plain && x, "one decode, two adapter sets: " + line);
                assertEquals(plain ? "adapters []" : "adapters [x@1.0]", applied, line);
            }
        }
        assertTrue(switches >= 2, "the sets took turns: " + context.calls());
        assertTrue(
                context.calls("decode").stream().anyMatch(l -> l.contains(" 1@") && l.contains(" 2@")),
                "requests of one set still share decodes: " + context.calls("decode"));
    }

    /**
     * A slot's cells are no prefix for a request of another adapter set (nor another scale of the
     * same adapter), nor are they copied to one; a request of the same set reuses them. Scale 0 is
     * no adapter.
     */
    @Test
    void aCachedPrefixIsReusedOnlyWithinItsAdapterSet() throws Exception {
        scheduler(3, 32, 32);
        int[] p = prompt("abcdefgh");
        start(request("first", p, 1, X));
        finishAll();
        context.clearCalls();
        Generation plain = start(request("plain", p, 1, new AdapterScale(new FakeAdapter("x"), 0f)));
        finishAll();
        assertEquals(0, done(events(plain)).timings().cachedTokens(), "no adapter: the x cells are no prefix");
        assertTrue(context.calls("copy").isEmpty(), "nor copied: " + context.calls());
        context.clearCalls();
        Generation half = start(request("half", p, 1, X_HALF));
        finishAll();
        assertEquals(0, done(events(half)).timings().cachedTokens(), "another scale is another set");
        Generation again = start(request("again", p, 1, X));
        finishAll();
        assertEquals(p.length - 1, done(events(again)).timings().cachedTokens(), "the same set reuses its cells");
    }

    // ------------------------------------------------------------------ prefill and decode

    @Test
    void aPromptIsPrefilledInChunksThenDecodedOneTokenPerStep() throws Exception {
        scheduler(1, 32, 4);
        context.script(A + 23, A + 24, A + 25); // x y z
        Generation g = start("g", prompt("abcde"), 3);
        assertEquals(SlotState.PREFILL, snapshot().slots().getFirst().state());
        scheduler.step();
        assertEquals(
                SlotState.PREFILL,
                snapshot().slots().getFirst().state(),
                "a prompt longer than the batch takes two steps");
        finishAll();
        assertEquals(
                List.of(
                        "sampler 1",
                        "remove 0 [0,-1)",
                        "decode 0@0:0 0@1:10 0@2:11 0@3:12",
                        "decode 0@4:13 0@5:14*",
                        "sample 1 @1 -> 33",
                        "decode 0@6:33*",
                        "sample 1 @0 -> 34",
                        "decode 0@7:34*",
                        "sample 1 @0 -> 35",
                        "close sampler 1"),
                context.calls());
        List<GenerationEvent> events = events(g);
        assertEquals(
                List.of(
                        new GenerationEvent.Text("x", 1),
                        new GenerationEvent.Text("y", 1),
                        new GenerationEvent.Text("z", 1)),
                events.subList(0, 3));
        GenerationEvent.Done done = done(events);
        assertEquals(FinishReason.LENGTH, done.reason());
        assertEquals(6, done.timings().promptTokens());
        assertEquals(0, done.timings().cachedTokens());
        assertEquals(3, done.timings().completionTokens());
        SlotSnapshot slot = snapshot().slots().getFirst();
        assertEquals(SlotState.IDLE, slot.state());
        // The prompt and every generated token but the last, which was never decoded.
        assertEquals(8, slot.cachedTokens());
        assertArrayEquals(concat(prompt("abcde"), A + 23, A + 24), context.cells(0));
        assertEquals(6, snapshot().prefilledTokens());
        assertEquals(8, snapshot().kvCellsUsed());
    }

    @Test
    void aRepeatedPromptReusesTheSlotsCellsAndComputesOnlyItsLastToken() throws Exception {
        scheduler(1, 32, 16);
        int[] p = prompt("abcde");
        cache(p);
        Generation again = start("again", p, 2);
        finishAll();
        assertEquals("remove 0 [5,-1)", context.calls().get(1));
        assertEquals("decode 0@5:14*", context.calls().get(2), "only the last prompt token, for its logits");
        assertEquals(5, done(events(again)).timings().cachedTokens());
        assertEquals(7, snapshot().prefilledTokens());
        assertEquals(5, snapshot().reusedTokens());
        assertEquals(0, snapshot().prefixCopies());
    }

    @Test
    void theNextTurnOfAConversationReusesEverythingTheSlotComputed() throws Exception {
        scheduler(1, 64, 16);
        context.script(A + 23, A + 24, A + 25);
        int[] p = prompt("abcde");
        start("turn-1", p, 3);
        finishAll();
        context.clearCalls();
        // The client sends the answer back (x y z) with its next message (q).
        Generation next = start("turn-2", concat(p, A + 23, A + 24, A + 25, A + 16), 1);
        finishAll();
        assertEquals("remove 0 [8,-1)", context.calls().get(1), "the cells of the prompt and x y");
        assertEquals("decode 0@8:35 0@9:26*", context.calls().get(2));
        assertEquals(8, done(events(next)).timings().cachedTokens());
    }

    // ------------------------------------------------------------------ media

    private static GenerationRequest media(String id, FakeMedia m, int maxTokens) {
        return new GenerationRequest(
                id,
                m.tokens(),
                SamplingParams.GREEDY,
                maxTokens,
                List.of(),
                Set.of(),
                false,
                -1,
                false,
                null,
                List.of(),
                m);
    }

    @Test
    void anImageIsDecodedWholeAfterTheTextBeforeItAndCountsAsPromptTokens() throws Exception {
        scheduler(1, 64, 16);
        FakeMedia m = FakeMedia.of(prompt("ab"), new FakeMedia.Image("cat", 6), FakeVocabulary.ids("cd"));
        String cat = ChatImage.sha256("cat".getBytes()).substring(0, 8);
        Generation g = new Generation(media("look", m, 1));
        assertEquals(2, m.holders.get(), "the engine holds its own reference while the request runs");
        scheduler.start(g);
        finishAll();
        assertEquals(
                List.of(
                        "sampler 1",
                        "remove 0 [0,-1)",
                        "decode 0@0:0 0@1:10 0@2:11",
                        "media 0@3:" + cat + " x6",
                        "decode 0@9:12 0@10:13*"),
                context.calls().subList(0, 5),
                "the text before the image first, then the image on its own, then the rest with its logits");
        assertEquals(11, snapshot().prefilledTokens(), "the image's embeddings are prompt tokens");
        assertEquals(1, snapshot().mediaEncodes());
        assertEquals(6, snapshot().mediaTokens());
        done(events(g));
        assertEquals(1, m.holders.get(), "the engine dropped its reference with the request's end");
    }

    @Test
    void aReturningTurnWithTheSameImageReusesItsCellsAndAnotherImageIsEncoded() throws Exception {
        scheduler(1, 64, 16);
        context.script(A + 23);
        FakeMedia first = FakeMedia.of(prompt("ab"), new FakeMedia.Image("cat", 6), FakeVocabulary.ids("cd"));
        start(media("turn-1", first, 1));
        finishAll();
        context.clearCalls();
        FakeMedia next = FakeMedia.of(
                prompt("ab"), new FakeMedia.Image("cat", 6), FakeVocabulary.ids("cd"), new int[] {A + 23, A + 16});
        Generation again = start(media("turn-2", next, 1));
        finishAll();
        assertTrue(context.calls("media").isEmpty(), "the image's cells came from the slot: " + context.calls());
        assertEquals(11, done(events(again)).timings().cachedTokens(), "the text and the image's 6 cells");
        assertEquals(1, snapshot().mediaEncodes());
        context.clearCalls();
        // the same text with another image: the slot keeps what comes before the image, and encodes it
        FakeMedia dog = FakeMedia.of(prompt("ab"), new FakeMedia.Image("dog", 6), FakeVocabulary.ids("cd"));
        start(media("dog", dog, 1));
        finishAll();
        assertEquals("remove 0 [3,-1)", context.calls().get(1));
        assertEquals(1, context.calls("media").size(), context.calls().toString());
        assertEquals(2, snapshot().mediaEncodes());
    }

    @Test
    void anEncodeThatFailsFailsItsRequestAloneAndDropsItsCells() throws Exception {
        scheduler(2, 64, 16);
        Generation text = start("text", prompt("abcdef"), 3);
        context.failMedia(new BackendException("the encoder failed"));
        FakeMedia m = FakeMedia.of(prompt("ab"), new FakeMedia.Image("cat", 6), FakeVocabulary.ids("cd"));
        Generation image = start(media("image", m, 1));
        finishAll();
        assertTrue(failed(events(image)).getMessage().contains("the encoder failed"));
        assertTrue(
                context.calls("remove").contains("remove 1 [0,-1)"),
                context.calls().toString());
        done(events(text));
        assertEquals(1, m.holders.get(), "a failed request drops its reference too");
        assertEquals(0, snapshot().busySlots());
    }

    /** Text "ab", a cat of 6 embeddings that an M-RoPE projector places at 2 positions, then {@code after}. */
    private static FakeMedia mropeCat(int[] after) {
        return FakeMedia.of(prompt("ab"), new FakeMedia.Image("cat", 6, 2), after);
    }

    @Test
    void anMRopeImageAdvancesThePositionByItsPositionsWhileItTakesACellPerEmbedding() throws Exception {
        scheduler(1, 64, 16);
        FakeMedia m = mropeCat(FakeVocabulary.ids("cd"));
        String cat = ChatImage.sha256("cat".getBytes()).substring(0, 8);
        Generation g = start(media("look", m, 2));
        finishAll();
        assertEquals(
                List.of(
                        "decode 0@0:0 0@1:10 0@2:11",
                        "media 0@3:" + cat + " x6 p2",
                        "decode 0@5:12 0@6:13*",
                        "decode 0@7:" + FakeContext.FILLER + "*"),
                context.calls().stream()
                        .filter(c -> c.startsWith("decode") || c.startsWith("media"))
                        .toList(),
                "the text after the image starts 2 positions after its first, 6 cells after it");
        assertEquals(11, snapshot().prefilledTokens(), "its embeddings are prompt tokens, one per cell");
        assertEquals(12, snapshot().slots().get(0).cachedTokens(), "cells, not positions");
        assertEquals(11, done(events(g)).timings().promptTokens());
    }

    @Test
    void aReturningMRopeTurnKeepsTheImageAndGoesOnAtItsPositions() throws Exception {
        scheduler(1, 64, 16);
        context.script(A + 23);
        start(media("turn-1", mropeCat(FakeVocabulary.ids("cd")), 1));
        finishAll();
        context.clearCalls();
        // the slot's 11 cells end at position 7: the next turn removes nothing and goes on there
        Generation next = start(media("turn-2", mropeCat(concat(FakeVocabulary.ids("cd"), A + 23, A + 16)), 1));
        finishAll();
        assertEquals(
                List.of("remove 0 [7,-1)", "decode 0@7:" + (A + 23) + " 0@8:" + (A + 16) + "*"),
                context.calls().stream()
                        .filter(c -> c.startsWith("decode") || c.startsWith("remove") || c.startsWith("media"))
                        .toList());
        assertEquals(11, done(events(next)).timings().cachedTokens());
        context.clearCalls();
        // a prompt that leaves the conversation inside the text after the image: cut at that text's position
        Generation cut = start(media("cut", mropeCat(FakeVocabulary.ids("cx")), 1));
        finishAll();
        assertEquals(
                List.of("remove 0 [6,-1)", "decode 0@6:" + FakeVocabulary.ids("x")[0] + "*"),
                context.calls().stream()
                        .filter(c -> c.startsWith("decode") || c.startsWith("remove") || c.startsWith("media"))
                        .toList(),
                "cell 10 is position 6");
        assertEquals(10, done(events(cut)).timings().cachedTokens());
        assertEquals(1, snapshot().mediaEncodes());
        context.clearCalls();
        // a prompt that leaves it before the image drops the image's cells with its first position
        start("text", prompt("abz"), 1);
        finishAll();
        assertEquals("remove 0 [3,-1)", context.calls("remove").getFirst());
        assertArrayEquals(prompt("abz"), context.cells(0));
    }

    @Test
    void anMRopePrefixCopiedFromABusySlotEndsAtItsPosition() throws Exception {
        scheduler(2, 64, 64);
        Generation running = start(media("busy", mropeCat(FakeVocabulary.ids("cdef")), 20));
        untilDecoding(0);
        context.clearCalls();
        FakeMedia other = mropeCat(FakeVocabulary.ids("cdxy"));
        Generation copied = start(media("copy", other, 1));
        // 11 cells are shared (BOS a b, 6 of the image, c d): cell 11 is position 7
        assertEquals(List.of("sampler 2", "remove 1 [0,-1)", "copy 0 -> 1 [0,7)"), context.calls());
        running.cancel();
        finishAll();
        assertEquals(11, done(events(copied)).timings().cachedTokens());
        assertArrayEquals(other.tokens(), Arrays.copyOf(context.cells(1), other.tokens().length));
        assertEquals(1, snapshot().mediaEncodes(), "the copy took the image with it");
    }

    // ------------------------------------------------------------------ slot choice and copies

    @Test
    void theFreeSlotWhoseCellsShareMostGetsTheRequestAndTheLeastRecentlyUsedAmongEquals() throws Exception {
        scheduler(3, 32, 32);
        start("a", prompt("abc"), 1);
        finishAll();
        assertEquals(
                "a",
                snapshots.stream()
                        .filter(s -> s.busySlots() > 0)
                        .findFirst()
                        .orElseThrow()
                        .slots()
                        .get(0)
                        .requestId(),
                "all empty: the first slot");
        Generation b = start("b", prompt("abcx"), 1);
        assertEquals("b", snapshot().slots().get(0).requestId(), "slot 0 holds a b c");
        Generation c = start("c", FakeVocabulary.ids("qrs"), 1);
        assertEquals(
                "c",
                snapshot().slots().get(1).requestId(),
                "slots 1 and 2 share nothing and were never used: the first");
        finishAll();
        // Slots 0 and 1 now hold cells; a prompt sharing nothing with either takes slot 2, the least recently used.
        Generation d = start("d", FakeVocabulary.ids("mno"), 1);
        assertEquals("d", snapshot().slots().get(2).requestId());
        finishAll();
        // Now all three share nothing with it: slot 0 was used longest ago (b ended before c).
        Generation e = start("e", FakeVocabulary.ids("uvw"), 1);
        assertEquals("e", snapshot().slots().get(0).requestId());
        finishAll();
        for (Generation g : List.of(b, c, d, e)) {
            assertEquals(FinishReason.LENGTH, done(events(g)).reason());
        }
    }

    @Test
    void aSlotIsUsedWhenItsRequestEndsNotOnlyWhenItStarts() throws Exception {
        scheduler(2, 32, 32);
        start("long", FakeVocabulary.ids("abc"), 5); // slot 0, started first, ends last
        start("short", FakeVocabulary.ids("def"), 1); // slot 1
        finishAll();
        Generation next = start("next", FakeVocabulary.ids("xyz"), 1);
        assertEquals("next", snapshot().slots().get(1).requestId(), "slot 1 was left longest ago");
        finishAll();
        assertEquals(FinishReason.LENGTH, done(events(next)).reason());
    }

    @Test
    void aLongerPrefixCachedInAnotherBusySlotIsCopiedNotComputed() throws Exception {
        scheduler(2, 64, 64);
        int[] busy = prompt(SYSTEM + " one");
        int[] other = prompt(SYSTEM + " two");
        int shared = SlotView.commonPrefix(busy, busy.length, other, other.length);
        Generation running = start("busy", busy, 20);
        untilDecoding(0);
        context.clearCalls();
        Generation copied = start("copy", other, 2);
        assertEquals(List.of("sampler 2", "remove 1 [0,-1)", "copy 0 -> 1 [0," + shared + ")"), context.calls());
        scheduler.step();
        assertEquals(1, decodesOf(1).size());
        assertTrue(
                decodesOf(1).getFirst().contains(" 1@" + shared + ":"),
                "prefill starts after the copied cells: " + decodesOf(1));
        running.cancel();
        finishAll();
        assertEquals(shared, done(events(copied)).timings().cachedTokens());
        assertArrayEquals(Arrays.copyOf(other, other.length), Arrays.copyOf(context.cells(1), other.length));
        EngineSnapshot s = snapshot();
        assertEquals(1, s.prefixCopies());
        assertEquals(busy.length + other.length - shared, s.prefilledTokens());
        assertEquals(
                s.slots().get(0).cachedTokens() + s.slots().get(1).cachedTokens(),
                s.kvCellsUsed(),
                "a copied prefix is held in both streams");
    }

    @Test
    void aMemoryThatCannotDropATailComputesThePromptAgainFromTheStart() throws Exception {
        scheduler(1, 32, 16);
        context.cannotTrim();
        int[] p = prompt("abcde");
        cache(p);
        Generation again = start("again", p, 2);
        finishAll();
        assertEquals(List.of("remove 0 [5,-1)", "remove 0 [0,-1)"), context.calls("remove"));
        assertEquals(
                "decode 0@0:0 0@1:10 0@2:11 0@3:12 0@4:13 0@5:14*",
                context.calls("decode").getFirst());
        assertEquals(0, done(events(again)).timings().cachedTokens());
        assertEquals(0, snapshot().reusedTokens());
    }

    // ------------------------------------------------------------------ waiting for another slot's prefill

    @Test
    void requestsArrivingTogetherWithOneSystemPromptComputeItOnce() throws Exception {
        scheduler(3, 64, 8);
        int[] a = prompt(SYSTEM + " one");
        int[] b = prompt(SYSTEM + " two");
        int[] c = prompt(SYSTEM + " six");
        int shared = SlotView.commonPrefix(a, a.length, b, b.length);
        assertEquals(shared, SlotView.commonPrefix(a, a.length, c, c.length));
        List<Generation> all = List.of(start("a", a, 2), start("b", b, 2), start("c", c, 2));
        assertEquals(2, snapshot().prefixWaits(), "b and c wait for a; c does not follow b, which waits itself");
        assertEquals(List.of("sampler 1", "remove 0 [0,-1)", "sampler 2", "sampler 3"), context.calls());
        // a computes the shared prefix, 8 tokens a step; b and c have nothing in the batches meanwhile.
        int steps = (shared + 7) / 8;
        for (int i = 0; i < steps; i++) {
            scheduler.step();
        }
        assertTrue(
                decodesOf(1).isEmpty() && decodesOf(2).isEmpty(),
                context.calls().toString());
        assertEquals(List.of(), context.calls("copy"));
        scheduler.step(); // a holds the prefix: the waits are over
        assertEquals(
                List.of("copy 0 -> 1 [0," + shared + ")", "copy 0 -> 2 [0," + shared + ")"), context.calls("copy"));
        finishAll();
        int cached = 0;
        for (Generation g : all) {
            GenerationEvent.Done done = done(events(g));
            assertEquals(FinishReason.LENGTH, done.reason());
            cached += done.timings().cachedTokens();
        }
        EngineSnapshot s = snapshot();
        assertEquals(2 * shared, cached);
        assertEquals(
                a.length + (b.length - shared) + (c.length - shared),
                s.prefilledTokens(),
                "the system prompt is computed once");
        assertEquals(2, s.prefixCopies());
        assertEquals(cached, s.reusedTokens());
    }

    @Test
    void aWaitThatSavesLittleIsNotTaken() throws Exception {
        scheduler(3, 96, 128);
        start("earlier", prompt(SYSTEM + " x"), 1);
        finishAll(); // slot 0 holds the system prompt
        int[] a = prompt(SYSTEM + " ab" + " a long question that takes many steps to read");
        int[] b = prompt(SYSTEM + " ab" + " another");
        start("a", a, 1);
        context.clearCalls();
        start("b", b, 1);
        int cachedShare = prompt(SYSTEM + " ").length;
        // b shares 2 tokens more with a's prompt than slot 0's cells hold, of some 50 that a computes: not worth a
        // step.
        assertEquals(0, snapshot().prefixWaits());
        assertEquals(List.of("sampler 3", "remove 1 [0,-1)", "copy 0 -> 1 [0," + cachedShare + ")"), context.calls());
        scheduler.step();
        assertEquals(1, decodesOf(1).size(), "b prefills at once, beside a");
        assertEquals(decodesOf(0), decodesOf(1));
        finishAll();
    }

    @Test
    void aFollowerWhoseLeaderIsCancelledTakesWhatTheLeaderComputed() throws Exception {
        scheduler(3, 64, 8);
        int[] a = prompt(SYSTEM + " one");
        Generation leader = start("a", a, 2);
        Generation b = start("b", prompt(SYSTEM + " two"), 2);
        Generation c = start("c", prompt(SYSTEM + " six"), 2);
        scheduler.step();
        scheduler.step(); // a has computed 16 tokens of the shared prefix
        leader.cancel();
        context.clearCalls();
        scheduler.step();
        List<GenerationEvent> cancelled = events(leader);
        assertEquals(1, cancelled.size(), "nothing but the end: " + cancelled);
        assertEquals(FinishReason.CANCELLED, done(cancelled).reason());
        assertEquals(
                List.of(
                        "close sampler 1",
                        "remove 1 [0,-1)",
                        "copy 0 -> 1 [0,16)",
                        "remove 2 [0,-1)",
                        "copy 0 -> 2 [0,16)"),
                context.calls().subList(0, 5));
        assertEquals(16, snapshot().slots().get(0).cachedTokens(), "a cancelled request's cells stay cached");
        finishAll();
        assertEquals(16, done(events(b)).timings().cachedTokens());
        assertEquals(16, done(events(c)).timings().cachedTokens());
    }

    // ------------------------------------------------------------------ how requests end

    @Test
    void aCancelledRequestEndsAtTheNextStepWithoutTheTextItHeldBack() throws Exception {
        scheduler(1, 32, 16);
        context.script(A + 23, A + 24); // x, then y: perhaps the start of the stop string "yz"
        Generation g = start(
                new GenerationRequest("g", prompt("abc"), SamplingParams.GREEDY, 10, List.of("yz"), Set.of(), false));
        scheduler.step();
        scheduler.step();
        g.cancel();
        context.clearCalls();
        scheduler.step();
        assertEquals(List.of("close sampler 1"), context.calls(), "no decode, and the cells stay");
        List<GenerationEvent> events = events(g);
        assertEquals("x", text(events), "the held-back y is not sent");
        assertEquals(FinishReason.CANCELLED, done(events).reason());
        assertEquals(5, snapshot().slots().getFirst().cachedTokens());
        assertFalse(scheduler.anyActive());
    }

    @Test
    void fillingTheSlotsContextEndsWithLength() throws Exception {
        scheduler(1, 16, 16);
        int[] p = prompt("abcd");
        Generation untilFull = start("full", p, -1);
        finishAll();
        GenerationEvent.Done done = done(events(untilFull));
        assertEquals(FinishReason.LENGTH, done.reason());
        assertEquals(16 - p.length, done.timings().completionTokens());
        assertEquals("decode 0@14:35*", context.calls("decode").getLast(), "the last cell the slot has, then no more");
        // max_tokens beyond the slot's room (the engine refuses it up front) still stops there.
        Generation beyond = start("beyond", p, 100);
        finishAll();
        assertEquals(16 - p.length, done(events(beyond)).timings().completionTokens());
    }

    @Test
    void stopStringsAndEndTokensEndARequestWithStop() throws Exception {
        scheduler(3, 32, 32);
        context.script(A, A + 1, A + 2, A + 3, A + 4); // a b c d e
        context.script(A, FakeVocabulary.EOS, A + 1);
        context.script(A, FakeVocabulary.END_OF_TURN, A + 1);
        Generation stopString = start(
                new GenerationRequest("stop", prompt("q"), SamplingParams.GREEDY, 10, List.of("cd"), Set.of(), false));
        Generation eos = start("eos", prompt("r"), 10);
        Generation turn = start(new GenerationRequest(
                "turn", prompt("s"), SamplingParams.GREEDY, 10, List.of(), Set.of(FakeVocabulary.END_OF_TURN), false));
        finishAll();
        List<GenerationEvent> s = events(stopString);
        assertEquals("ab", text(s), "the stop string is never sent, nor what came before it in its token");
        assertEquals(FinishReason.STOP, done(s).reason());
        assertEquals(4, done(s).timings().completionTokens());
        for (Generation g : List.of(eos, turn)) {
            List<GenerationEvent> e = events(g);
            assertEquals("a", text(e));
            assertEquals(FinishReason.STOP, done(e).reason());
            assertEquals(1, done(e).timings().completionTokens(), "the end token is not part of the completion");
        }
    }

    // ------------------------------------------------------------------ failures stay where they belong

    @Test
    void aFailingSamplerFailsOnlyItsOwnRequest() throws Exception {
        scheduler(3, 32, 32);
        context.script(A, FakeContext.THROW);
        context.script(A, FakeContext.REFUSE);
        context.script(A, A + 1, A + 2, A + 3);
        Generation broken = start("broken", FakeVocabulary.ids("abc"), 4);
        Generation refused = start("refused", FakeVocabulary.ids("def"), 4);
        Generation fine = start("fine", FakeVocabulary.ids("ghi"), 4);
        finishAll();
        ForgeException bug = failed(events(broken));
        assertEquals("sampling failed: scripted failure of sampler 1", bug.getMessage());
        assertInstanceOf(IllegalStateException.class, bug.getCause());
        assertInstanceOf(SamplingException.class, failed(events(refused)), "a backend's own error passes as it is");
        List<GenerationEvent> ok = events(fine);
        assertEquals("abcd", text(ok));
        assertEquals(FinishReason.LENGTH, done(ok).reason());
        // The failed requests' cells are dropped (their state is not known to be sound) and their samplers closed.
        assertTrue(context.calls("remove").containsAll(List.of("remove 0 [0,-1)", "remove 1 [0,-1)")));
        assertEquals(0, snapshot().slots().get(0).cachedTokens());
        assertEquals(0, context.cells(0).length);
        assertEquals(0, context.openSamplers());
    }

    @Test
    void aFailingDecodeFailsTheRequestsInItsBatchAndNoOther() throws Exception {
        scheduler(3, 32, 4);
        Generation decoding = start("decoding", FakeVocabulary.ids("ab"), 10);
        scheduler.step(); // decoding now
        Generation prefilling = start("prefilling", FakeVocabulary.ids("cdefghij"), 2);
        Generation outside = start("outside", FakeVocabulary.ids("klmnopqr"), 2);
        BackendException error = new BackendException("no KV space");
        context.beforeDecode(n -> {
            if (n == 2) {
                throw error;
            }
        });
        scheduler.step(); // 1 token of "decoding", 3 of "prefilling": the batch is full before "outside"
        assertSame(error, failed(events(decoding)));
        assertSame(error, failed(events(prefilling)));
        assertEquals(List.of(), events(outside));
        assertEquals(0, snapshot().slots().get(0).cachedTokens());
        assertEquals(0, snapshot().slots().get(1).cachedTokens());
        finishAll();
        assertEquals(FinishReason.LENGTH, done(events(outside)).reason());
        assertEquals(0, context.openSamplers());
    }

    @Test
    void aSamplerThatCannotBeMadeFailsItsRequestAtOnce() throws Exception {
        scheduler(2, 32, 32);
        context.failSamplers(new IllegalArgumentException("bad grammar"));
        Generation g = start("g", prompt("abc"), 2);
        ForgeException error = failed(events(g));
        assertEquals("bad grammar", error.getMessage());
        assertEquals(List.of("remove 0 [0,-1)"), context.calls());
        assertFalse(scheduler.anyActive());
        context.failSamplers(null);
        Generation next = start("next", prompt("abc"), 2);
        finishAll();
        assertEquals(FinishReason.LENGTH, done(events(next)).reason());
    }

    @Test
    void aBackendWithoutLogprobsFailsOnlyTheRequestThatAsks() throws Exception {
        scheduler(2, 32, 32);
        context.noLogprobs();
        Generation asks = start(new GenerationRequest(
                        "asks", FakeVocabulary.ids("abc"), SamplingParams.GREEDY, 3, List.of(), Set.of(), false)
                .withLogprobs(2));
        Generation plain = start("plain", FakeVocabulary.ids("def"), 3);
        finishAll();
        assertEquals(
                "log-probabilities are not supported by this backend",
                failed(events(asks)).getMessage());
        assertEquals(FinishReason.LENGTH, done(events(plain)).reason());
    }

    @Test
    void failAllFailsEveryRunningRequest() throws Exception {
        scheduler(2, 32, 4);
        Generation a = start("a", FakeVocabulary.ids("abc"), 10);
        Generation b = start("b", FakeVocabulary.ids("defghi"), 10);
        scheduler.step();
        ForgeException error = new ForgeException("shut down");
        scheduler.failAll(error);
        assertSame(error, failed(events(a)));
        assertSame(error, failed(events(b)));
        assertFalse(scheduler.anyActive());
        assertEquals(0, context.openSamplers());
    }

    // ------------------------------------------------------------------ log-probabilities

    @Test
    void aScoredPromptReusesNoCacheAndScoresEveryPositionBeforeAnyText() throws Exception {
        scheduler(1, 32, 4);
        int[] p = prompt("abcde");
        cache(p);
        Generation scored =
                start(new GenerationRequest("scored", p, SamplingParams.GREEDY, 1, List.of(), Set.of(), false)
                        .withLogprobs(1)
                        .withScorePrompt(true));
        finishAll();
        assertEquals("remove 0 [0,-1)", context.calls().get(1), "its cells from the warm-up are not reused");
        assertEquals(
                List.of("decode 0@0:0* 0@1:10* 0@2:11* 0@3:12*", "decode 0@4:13* 0@5:14*"), context.calls("decode"));
        assertEquals(
                List.of(
                        "logprobs @0 10 top 1",
                        "logprobs @1 11 top 1",
                        "logprobs @2 12 top 1",
                        "logprobs @3 13 top 1",
                        "logprobs @0 14 top 1",
                        "logprobs @1 " + FakeContext.FILLER + " top 1"),
                context.calls("logprobs"),
                "each position scores the next prompt token");
        List<GenerationEvent> events = events(scored);
        GenerationEvent.PromptLogprobs prompt =
                assertInstanceOf(GenerationEvent.PromptLogprobs.class, events.getFirst());
        assertEquals(p.length - 1, prompt.tokens().size());
        for (int k = 0; k < prompt.tokens().size(); k++) {
            assertArrayEquals(
                    new FakeVocabulary().piece(p[k + 1], true),
                    prompt.tokens().get(k).bytes());
            assertEquals(1, prompt.tokens().get(k).top().size());
        }
        assertEquals(0, done(events).timings().cachedTokens());
    }

    // ------------------------------------------------------------------ snapshots

    @Test
    void snapshotsFollowTheSlotsStates() throws Exception {
        scheduler(2, 32, 4);
        assertTrue(snapshots.isEmpty(), "nothing published before anything happened");
        scheduler.publish();
        assertEquals(
                List.of(SlotState.IDLE, SlotState.IDLE),
                snapshot().slots().stream().map(SlotSnapshot::state).toList());
        assertEquals(64, snapshot().kvCells());
        start("g", prompt("abcdef"), 2);
        SlotSnapshot s = snapshot().slots().get(0);
        assertEquals(new SlotSnapshot(0, SlotState.PREFILL, 0, "g", 7, 0, 0, 0), s);
        untilDecoding(0);
        // Published as it turns to decoding, before it samples its first token.
        assertEquals(
                new SlotSnapshot(0, SlotState.DECODE, 7, "g", 7, 0, 0, 0),
                snapshot().slots().get(0));
        scheduler.publish();
        assertEquals(
                new SlotSnapshot(0, SlotState.DECODE, 7, "g", 7, 0, 1, 0),
                snapshot().slots().get(0));
        finishAll();
        assertEquals(
                new SlotSnapshot(0, SlotState.IDLE, 8, "", 0, 0, 0, 0),
                snapshot().slots().get(0));
    }

    // ------------------------------------------------------------------ the host prompt cache

    private static final PromptCache.Key KEY =
            new PromptCache.Key("/models/fake.gguf", 1, 2, "ab", 64, 1, forge.api.backend.KvCacheType.F16, "AUTO");

    private PromptCache hostCache(int slots, int slotContext, int batch, PromptCache.Key key) {
        PromptCache cache = new PromptCache(1 << 20);
        scheduler(new FakeContext(slots * slotContext, slots, batch), slots, slotContext, cache, key);
        return cache;
    }

    /** 40 tokens that no other such prompt starts like. */
    private static int[] session(char c) {
        return prompt(String.valueOf(c).repeat(39));
    }

    @Test
    void aSlotsCellsAreSavedBeforeAnotherPromptReplacesThemAndRestoredWhenTheyReturn() throws InterruptedException {
        PromptCache cache = hostCache(1, 64, 16, KEY);
        cache(session('a'));
        start("b", session('b'), 1);
        assertEquals(
                List.of("sampler 2", "save 0 (40)", "remove 0 [1,-1)"),
                context.calls(),
                "saved before its cells go (all but BOS, which the prompts share)");
        finishAll();
        assertEquals(1, cache.size());
        context.clearCalls();

        Generation back = start("a again", concat(session('a'), A + 1, A + 2), 1);
        assertEquals(
                List.of("save 0 (40)", "restore 0 (40)"),
                context.calls().stream()
                        .filter(c -> c.startsWith("save") || c.startsWith("restore"))
                        .toList());
        finishAll();
        List<String> decodes = context.calls("decode");
        assertTrue(decodes.getFirst().startsWith("decode 0@40:"), "only the suffix is prefilled: " + decodes);
        assertEquals(40, done(events(back)).timings().cachedTokens(), "cached_tokens counts restored tokens");
        assertEquals(40, snapshot().restoredTokens());
        assertEquals(1, snapshot().cacheRestores());
        assertEquals(2, snapshot().cacheSaves());
        assertArrayEquals(concat(session('a'), A + 1, A + 2), context.cells(0));
    }

    @Test
    void anImagesCellsAreSavedToTheHostCacheAndRestoredWithoutEncodingItAgain() throws InterruptedException {
        PromptCache cache = hostCache(1, 64, 16, KEY);
        FakeMedia first = FakeMedia.of(prompt("ab"), new FakeMedia.Image("cat", 40), FakeVocabulary.ids("cd"));
        start(media("image", first, 1));
        finishAll();
        assertEquals(1, snapshot().mediaEncodes());
        start("b", session('b'), 1);
        finishAll();
        assertEquals(1, cache.size(), "the image's conversation was saved before its cells went");
        context.clearCalls();
        FakeMedia back = FakeMedia.of(
                prompt("ab"), new FakeMedia.Image("cat", 40), FakeVocabulary.ids("cd"), new int[] {A + 16});
        Generation g = start(media("image again", back, 1));
        finishAll();
        assertEquals(List.of("restore 0 (45)"), context.calls("restore"));
        assertEquals(List.of(), context.calls("media"), "the image came back with the state: " + context.calls());
        assertEquals(45, done(events(g)).timings().cachedTokens());
        assertEquals(1, snapshot().mediaEncodes());
        assertArrayEquals(back.tokens(), context.cells(0));
    }

    @Test
    void anMRopeImagesRestoredCellsGoOnAtTheirPositionsAndATrimCutsAtOne() throws InterruptedException {
        PromptCache cache = hostCache(1, 64, 16, KEY);
        FakeMedia first = FakeMedia.of(prompt("ab"), new FakeMedia.Image("cat", 40, 5), FakeVocabulary.ids("cdef"));
        start(media("image", first, 1));
        finishAll();
        start("b", session('b'), 1);
        finishAll();
        assertEquals(1, cache.size());
        context.clearCalls();
        // 45 cells shared (BOS a b, 40 of the image, c d) of the entry's 47: cell 45 is position 10
        FakeMedia back = FakeMedia.of(prompt("ab"), new FakeMedia.Image("cat", 40, 5), FakeVocabulary.ids("cdxy"));
        Generation g = start(media("image again", back, 1));
        finishAll();
        assertEquals(List.of("restore 0 (47)"), context.calls("restore"));
        assertTrue(context.calls().contains("remove 0 [10,-1)"), context.calls().toString());
        assertEquals(List.of(), context.calls("media"));
        assertTrue(
                context.calls("decode").getFirst().startsWith("decode 0@10:"),
                context.calls().toString());
        assertEquals(45, done(events(g)).timings().cachedTokens());
        assertArrayEquals(back.tokens(), Arrays.copyOf(context.cells(0), back.tokens().length));
    }

    /**
     * The host cache keeps only states computed without adapters: cells computed with an adapter
     * are not saved when replaced, and a request with an adapter restores no entry (an entry says
     * nothing of the adapters that computed it).
     */
    @Test
    void theHostCacheIsNotSharedAcrossAdapterSets() throws InterruptedException {
        PromptCache cache = hostCache(1, 64, 16, KEY);
        start(request("a with x", session('a'), 1, X));
        finishAll();
        start("b", session('b'), 1);
        finishAll();
        assertEquals(0, cache.size(), "the x cells were not saved: " + context.calls());
        context.clearCalls();
        start("c", session('c'), 1); // b's plain cells are saved now
        finishAll();
        assertEquals(1, cache.size());
        context.clearCalls();
        Generation withX = start(request("b with x", session('b'), 1, X));
        finishAll();
        assertTrue(context.calls("restore").isEmpty(), "b's plain state is not restored for x: " + context.calls());
        assertEquals(0, done(events(withX)).timings().cachedTokens());
        context.clearCalls();
        Generation plain = start("b again", session('b'), 1);
        finishAll();
        assertEquals(List.of("restore 0 (40)"), context.calls("restore"), "a plain request restores it");
        assertEquals(39, done(events(plain)).timings().cachedTokens(), "all but the last prompt token");
    }

    @Test
    void aRestoredEntryIsTrimmedToThePrefixThePromptShares() throws InterruptedException {
        hostCache(1, 64, 16, KEY);
        cache(session('a'));
        cache(session('b'));
        int[] prompt = concat(Arrays.copyOf(session('a'), 35), A + 3, A + 4);
        Generation g = start("a, then other", prompt, 1);
        assertTrue(context.calls().contains("restore 0 (40)"));
        assertTrue(context.calls().contains("remove 0 [35,-1)"), context.calls().toString());
        finishAll();
        assertEquals(35, done(events(g)).timings().cachedTokens());
        assertArrayEquals(prompt, context.cells(0));
    }

    @Test
    void aStateTheBackendRefusesIsComputedInstead() throws InterruptedException {
        PromptCache cache = hostCache(1, 64, 16, KEY);
        cache.put(new PromptCache.Entry(KEY, session('a'), new byte[] {1, 2, 3}));
        Generation g = start("a", concat(session('a'), A), 1);
        assertTrue(context.calls().contains("restore 0 failed"));
        finishAll();
        assertEquals(0, done(events(g)).timings().cachedTokens());
        assertTrue(context.calls("decode").getFirst().startsWith("decode 0@0:"));
        assertEquals(0, snapshot().restoredTokens());
    }

    @Test
    void entriesOfAnotherModelOrOtherSettingsAreNeverRestored() throws InterruptedException {
        PromptCache cache = hostCache(1, 64, 16, KEY);
        PromptCache.Key other = new PromptCache.Key(
                KEY.model(),
                KEY.modelSize(),
                KEY.modelModified(),
                KEY.headerHash(),
                32,
                1,
                KEY.kvType(),
                KEY.flashAttention());
        cache.put(new PromptCache.Entry(other, session('a'), new byte[8]));
        Generation g = start("a", concat(session('a'), A), 1);
        assertTrue(context.calls("restore").isEmpty());
        finishAll();
        assertEquals(0, done(events(g)).timings().cachedTokens());
    }

    @Test
    void withoutAKeyNothingIsSavedOrRestored() {
        PromptCache cache = hostCache(1, 64, 16, null);
        cache(session('a'));
        cache(session('b'));
        assertEquals(0, cache.size());
        assertTrue(context.calls("save").isEmpty());
    }

    @Test
    void aShortPrefixOrOneMostlyKeptIsNotSaved() {
        PromptCache cache = hostCache(1, 64, 16, KEY);
        cache(prompt("short"));
        cache(prompt("other"));
        assertEquals(0, cache.size(), "under " + PromptCache.MIN_TOKENS + " tokens");
        cache(session('a'));
        cache(concat(Arrays.copyOf(session('a'), 30), A));
        assertEquals(0, cache.size(), "30 of 40 tokens kept");
    }

    // ------------------------------------------------------------------ speculative decoding

    private static GenerationRequest speculating(
            String id, int[] prompt, int maxTokens, Speculation speculation, List<String> stops) {
        return new GenerationRequest(id, prompt, SamplingParams.GREEDY, maxTokens, stops, Set.of(), false)
                .withSpeculation(speculation);
    }

    @Test
    void aDraftIsComputedWithTheLastTokenSampledPositionByPositionAndItsRejectedCellsRemoved() throws Exception {
        scheduler(1, 32, 16);
        // The first token, then: two of the three drafted tokens, a third that differs, and two more.
        context.script(A + 2, A + 3, A, A + 23, A + 24, A + 25); // c, d a x, y z
        Generation g = start(speculating("g", prompt("abcdab"), 6, new Speculation(2, 3, 0), List.of()));
        finishAll();
        assertEquals(
                List.of(
                        "sampler 1",
                        "remove 0 [0,-1)",
                        "decode 0@0:0 0@1:10 0@2:11 0@3:12 0@4:13 0@5:10 0@6:11*",
                        "sample 1 @6 -> 12",
                        // "b c" occurred at 2..3, followed by "d a b": the draft, with logits at every position.
                        "decode 0@7:12* 0@8:13* 0@9:10* 0@10:11*",
                        "sample 1 @0 -> 13",
                        "sample 1 @1 -> 10",
                        "sample 1 @2 -> 33",
                        "remove 0 [10,-1)",
                        "decode 0@10:33*",
                        "sample 1 @0 -> 34",
                        "decode 0@11:34*",
                        "sample 1 @0 -> 35",
                        "close sampler 1"),
                context.calls());
        List<GenerationEvent> events = events(g);
        assertEquals("cdaxyz", text(events));
        Timings timings = done(events).timings();
        assertEquals(6, timings.completionTokens());
        assertEquals(3, timings.draftTokens());
        assertEquals(2, timings.draftAccepted());
        assertEquals(3, snapshot().draftTokens());
        assertEquals(2, snapshot().draftAccepted());
        assertEquals(1, snapshot().draftSteps());
        assertArrayEquals(concat(prompt("abcdab"), FakeVocabulary.ids("cdaxy")), context.cells(0));
    }

    @Test
    void eachVerifiedTokensLogprobsAreReadAtItsOwnPositionOfTheBatch() throws Exception {
        scheduler(1, 32, 16);
        context.script(A + 2, A + 3, A, A + 23);
        Generation g =
                start(new GenerationRequest("g", prompt("abcdab"), SamplingParams.GREEDY, 4, List.of(), Set.of(), false)
                        .withLogprobs(0)
                        .withSpeculation(new Speculation(2, 3, 0)));
        finishAll();
        assertEquals(
                List.of("logprobs @6 12 top 0", "logprobs @0 13 top 0", "logprobs @1 10 top 0", "logprobs @2 33 top 0"),
                context.calls("logprobs"));
        List<TokenLogprob> logprobs = new ArrayList<>();
        for (GenerationEvent e : events(g)) {
            if (e instanceof GenerationEvent.Text t) {
                logprobs.addAll(t.logprobs());
            }
        }
        assertEquals(
                List.of(-1.75f, -0.25f, -0.5f, -0.75f),
                logprobs.stream().map(TokenLogprob::logprob).toList());
    }

    @Test
    void aFullyAcceptedDraftYieldsOneTokenMoreAndAnEndInsideItKeepsItsCells() throws Exception {
        scheduler(1, 32, 16);
        context.script(A + 2, A + 3, A, A + 1, A + 4, FakeVocabulary.EOS);
        Generation g = start(speculating("g", prompt("abcdab"), 20, new Speculation(2, 3, 0), List.of()));
        scheduler.step(); // prefill, samples c
        scheduler.step(); // c + draft d a b: all three accepted, and e after them
        assertEquals(
                List.of("sample 1 @0 -> 13", "sample 1 @1 -> 10", "sample 1 @2 -> 11", "sample 1 @3 -> 14"),
                context.calls("sample 1").subList(1, 5));
        assertEquals(
                List.of(),
                context.calls("remove").subList(1, context.calls("remove").size()),
                "nothing rejected");
        finishAll();
        List<GenerationEvent> events = events(g);
        assertEquals("cdabe", text(events));
        assertEquals(FinishReason.STOP, done(events).reason());
        assertEquals(3, done(events).timings().draftAccepted());
    }

    @Test
    void aRequestThatEndsInsideADraftKeepsTheDraftsCellsCachedAsTheSlotRecordsThem() throws Exception {
        scheduler(1, 32, 16);
        context.script(A + 2, A + 3, FakeVocabulary.EOS); // c, then d (drafted) and the end where "a" was drafted
        Generation g = start(speculating("g", prompt("abcdab"), 20, new Speculation(2, 3, 0), List.of()));
        finishAll();
        assertEquals("cd", text(events(g)));
        assertEquals(List.of("remove 0 [0,-1)"), context.calls("remove"), "nothing removed at the end");
        // c, and the draft d a b after it: computed after the tokens before them, so a sound prefix.
        assertArrayEquals(concat(prompt("abcdab"), FakeVocabulary.ids("cdab")), context.cells(0));
        assertEquals(11, snapshot().slots().getFirst().cachedTokens());
        Generation again = start(speculating(
                "again", concat(prompt("abcdab"), FakeVocabulary.ids("cdabx")), 1, Speculation.OFF, List.of()));
        finishAll();
        assertEquals(11, done(events(again)).timings().cachedTokens(), "the next prompt reuses them");
    }

    @Test
    void draftsFitTheRequestsLimitAndTheBatchBesideTheOtherSlotsTokens() throws Exception {
        scheduler(2, 64, 4);
        context.script(A + 2);
        context.script(A + 2);
        int[] repeated = prompt("abcabcabcab");
        Generation limited = start(speculating("limited", repeated, 3, new Speculation(2, 8, 0), List.of()));
        Generation other = start(speculating("other", repeated, 10, new Speculation(2, 8, 0), List.of()));
        finishAll();
        for (String d : context.calls("decode")) {
            assertTrue(d.split(" ").length - 1 <= 4, d);
        }
        // "limited" may yield 3 tokens: its first decode step drafts at most 1, as it then has 1 to go.
        assertTrue(
                context.calls("decode").stream()
                        .anyMatch(d -> d.contains("0@12:") && d.contains("0@13:") && !d.contains("0@14:")),
                context.calls("decode").toString());
        assertEquals(3, done(events(limited)).timings().completionTokens());
        assertEquals(10, done(events(other)).timings().completionTokens());
        assertTrue(snapshot().draftTokens() > 0);
    }

    @Test
    void aMemoryThatCannotDropRejectedDraftsFailsThatRequestAndSpeculationStopsForTheOthers() throws Exception {
        scheduler(1, 32, 16);
        context.cannotTrim();
        context.script(A + 2, A + 23);
        Generation g = start(speculating("g", prompt("abcdab"), 6, new Speculation(2, 3, 0), List.of()));
        finishAll();
        String error = failed(events(g)).getMessage();
        assertTrue(error.contains("cannot drop rejected draft tokens"), error);
        assertEquals(0, snapshot().slots().getFirst().cachedTokens(), "its cells are dropped");
        context.clearCalls();
        Generation next = start(speculating("next", prompt("abcdab"), 3, new Speculation(2, 3, 0), List.of()));
        finishAll();
        Timings timings = done(events(next)).timings();
        assertEquals(3, timings.completionTokens());
        assertEquals(0, timings.draftTokens(), "no more drafts on this context");
    }

    /**
     * The fake as a deterministic model that mostly repeats what it wrote five tokens earlier, so that
     * drafts are proposed, accepted and rejected: every request's text, end and token count are the
     * same with speculation as without, over random prompts, slots, batch sizes, draft settings,
     * limits and stop strings.
     */
    @Test
    void greedyOutputIsTheSameTokenForTokenWithAndWithoutSpeculation() throws Exception {
        long drafted = 0;
        long accepted = 0;
        for (int seed = 0; seed < 300; seed++) {
            java.util.Random random = new java.util.Random(seed);
            int slots = 1 + random.nextInt(3);
            int slotContext = 96;
            int batch = slots + 1 + random.nextInt(24);
            int requests = 1 + random.nextInt(6);
            List<GenerationRequest> plain = new ArrayList<>();
            List<GenerationRequest> speculative = new ArrayList<>();
            for (int k = 0; k < requests; k++) {
                int[] prompt = new int[6 + random.nextInt(30)];
                prompt[0] = FakeVocabulary.BOS;
                for (int i = 1; i < prompt.length; i++) {
                    prompt[i] = A + random.nextInt(random.nextBoolean() ? 3 : 26);
                }
                int max = 1 + random.nextInt(40);
                List<String> stops = random.nextInt(4) == 0 ? List.of("ab") : List.of();
                Speculation spec = random.nextInt(5) == 0
                        ? Speculation.OFF
                        : new Speculation(1 + random.nextInt(4), 1 + random.nextInt(10), 0);
                plain.add(speculating("r" + k, prompt, max, null, stops));
                speculative.add(speculating("r" + k, prompt, max, spec, stops));
            }
            List<String> withOut = runModel(slots, slotContext, batch, plain);
            assertEquals(0, snapshot().draftTokens(), "the engine's default is off");
            List<String> with = runModel(slots, slotContext, batch, speculative);
            assertEquals(withOut, with, "seed " + seed);
            drafted += snapshot().draftTokens();
            accepted += snapshot().draftAccepted();
        }
        assertTrue(accepted > 100 && drafted > accepted, "drafted " + drafted + ", accepted " + accepted);
    }

    // ------------------------------------------------------------------ adaptive drafting

    /** The alphabet, over and over: the fake model's next token is the one 26 cells back. */
    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz";

    private void alphabetModel(FakeContext c) {
        c.model(cells -> cells[cells.length - ALPHABET.length()]);
    }

    /** The tokens each decode after the first (the prompt's) verified: its draft's length. */
    private List<Integer> draftLengths() {
        List<String> decodes = context.calls("decode");
        List<Integer> out = new ArrayList<>();
        for (String d : decodes.subList(1, decodes.size())) {
            out.add(d.split(" ").length - 2); // "decode", the sampled token, then the draft
        }
        return out;
    }

    @Test
    void whenEveryDraftIsRejectedARequestDraftsAtMostOneTokenPerPauseAfterWarmUpAndWritesTheSameText()
            throws Exception {
        int tokens = 600;
        scheduler(1, 1024, 64);
        scheduler.synthetic(SyntheticAcceptance.length(1, 16)); // benchmark-only: every draft rejected
        alphabetModel(context);
        Generation g =
                start(speculating("g", prompt(ALPHABET + ALPHABET), tokens, new Speculation(2, 16, 0), List.of()));
        finishAll();
        List<GenerationEvent> events = events(g);
        assertEquals(ALPHABET.repeat(30).substring(0, tokens), text(events), "the model's own text");
        List<Integer> lengths = draftLengths();
        assertEquals(tokens - 1, lengths.size(), "one token per step: every draft rejected");
        // Without adaptation every step would verify 16 tokens; the lookup finds the alphabet every step.
        assertEquals(List.of(8, 4), lengths.subList(0, 2), "the first draft, then half of it");
        int warmUp = 100;
        int late = lengths.subList(warmUp, lengths.size()).stream()
                .mapToInt(Integer::intValue)
                .sum();
        int steps = lengths.size() - warmUp;
        assertTrue(
                late <= 1 + steps / (ActiveRequest.MAX_PAUSE + 1),
                late + " tokens verified in vain over the last " + steps + " steps");
        Timings timings = done(events).timings();
        assertEquals(lengths.stream().mapToInt(Integer::intValue).sum(), timings.draftTokens());
        assertEquals(0, timings.draftAccepted());
        assertTrue(timings.draftTokens() <= 0.05 * tokens, timings.draftTokens() + " drafted");
    }

    @Test
    void whenEveryDraftIsAcceptedTheDraftGrowsToItsMaximumAndStaysThere() throws Exception {
        scheduler(1, 1024, 64);
        scheduler.synthetic(SyntheticAcceptance.length(25, 24)); // every draft accepted
        alphabetModel(context);
        Generation g = start(speculating("g", prompt(ALPHABET + ALPHABET), 300, new Speculation(2, 24, 0), List.of()));
        finishAll();
        List<GenerationEvent> events = events(g);
        assertEquals(ALPHABET.repeat(12).substring(0, 300), text(events));
        List<Integer> lengths = draftLengths();
        // 1 + 9 + 17 + 25 * 10 = 277 tokens, then the 23 left: a draft of 22 and its one more.
        assertEquals(List.of(8, 16, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 22), lengths);
        assertEquals(
                done(events).timings().draftTokens(), done(events).timings().draftAccepted());
    }

    @Test
    void aPausedRequestRunsNoDraftModelDecodes() throws Exception {
        int tokens = 400;
        scheduler(1, 1024, 64);
        // A batch that holds a pause's tokens: the draft sequence catches up in the draft's one decode.
        FakeContext draftContext = new FakeContext(1024, 1, 2 * ActiveRequest.MAX_PAUSE);
        alphabetModel(draftContext);
        Drafter drafter = new Drafter(draftContext, new ComputeGate(64), 1, 1024);
        scheduler.drafter(drafter);
        scheduler.synthetic(SyntheticAcceptance.length(1, 4)); // every draft rejected
        alphabetModel(context);
        Generation g = start(
                speculating("g", prompt(ALPHABET + ALPHABET), tokens, Speculation.draftModel(4, 0, 0f), List.of()));
        for (int i = 0; i < 100; i++) {
            scheduler.step();
        }
        long warm = drafter.decodes();
        finishAll();
        assertEquals(ALPHABET.repeat(20).substring(0, tokens), text(events(g)));
        // Drafting every step would take 4 draft decodes per step (one per draft token).
        long late = drafter.decodes() - warm;
        assertTrue(late <= 1 + (tokens - 100) / (ActiveRequest.MAX_PAUSE + 1), late + " draft decodes after warm-up");
        assertEquals(List.of(4, 2, 0, 0, 0, 0, 1), draftLengths().subList(0, 7), "a pause of 4 after two misses");
        drafter.close();
    }

    /** Runs requests through the fake model, as many at once as there are slots; each one's text, end and count. */
    private List<String> runModel(int slots, int slotContext, int batch, List<GenerationRequest> requests)
            throws Exception {
        scheduler(slots, slotContext, batch);
        context.model(cells -> {
            int n = cells.length;
            int h = (n * 31 + cells[n - 1] * 17) % 7;
            return h == 0 ? A + (n * 13 + cells[n - 1]) % 26 : cells[Math.max(1, n - 5)];
        });
        List<Generation> generations = new ArrayList<>();
        int next = 0;
        for (int step = 0; next < requests.size() || scheduler.anyActive(); step++) {
            assertTrue(step < 10_000, "still running after 10000 steps");
            while (next < requests.size() && scheduler.anyFree()) {
                generations.add(start(requests.get(next++)));
            }
            scheduler.step();
        }
        List<String> out = new ArrayList<>();
        for (Generation g : generations) {
            List<GenerationEvent> events = events(g);
            GenerationEvent.Done done = done(events);
            out.add(text(events) + " | " + done.reason() + " " + done.timings().completionTokens() + " "
                    + done.stopSequence());
        }
        assertEquals(0, context.openSamplers());
        return out;
    }
}
