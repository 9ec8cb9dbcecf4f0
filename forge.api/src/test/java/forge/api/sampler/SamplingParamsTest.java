package forge.api.sampler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SamplingParamsTest {

    @Test
    void aBuilderStartsFromTheDefaultsAndToBuilderFromItsRecord() {
        assertEquals(SamplingParams.DEFAULTS, SamplingParams.builder().build());
        assertEquals(SamplingParams.GREEDY, SamplingParams.GREEDY.toBuilder().build());
        assertTrue(SamplingParams.GREEDY.greedy());
        assertFalse(SamplingParams.DEFAULTS.greedy());
    }

    @Test
    void eachSetterSetsItsFieldAlone() {
        SamplingParams p = SamplingParams.builder()
                .temperature(0.3f)
                .topK(7)
                .topP(0.5f)
                .minP(0.1f)
                .repeatPenalty(1.2f)
                .repeatLastN(-1)
                .frequencyPenalty(0.4f)
                .presencePenalty(-0.6f)
                .seed(42)
                .logitBias(Map.of(5, -1f))
                .build();
        assertEquals(defaultsBut(0.3f, 7, 0.5f, 0.1f, 1.2f, -1, 0.4f, -0.6f, 42, Map.of(5, -1f)), p);
        assertEquals(
                SamplingParams.GREEDY.toBuilder().seed(9).build(),
                defaultsBut(0f, 0, 1f, 0f, 1f, 64, 0f, 0f, 9, Map.of()));
    }

    @Test
    void aGrammarIsStrictOrLazy() {
        SamplingParams lazy = SamplingParams.GREEDY.toBuilder()
                .lazyGrammar("root ::= \"x\"", List.of("<tool_call>"))
                .build();
        assertEquals("root ::= \"x\"", lazy.grammar());
        assertEquals(List.of("<tool_call>"), lazy.grammarTriggers());
        SamplingParams strict = lazy.toBuilder().grammar("root ::= \"y\"").build();
        assertEquals("root ::= \"y\"", strict.grammar());
        assertEquals(List.of(), strict.grammarTriggers(), "a strict grammar constrains from the first token");
        assertEquals(SamplingParams.GREEDY, strict.toBuilder().grammar("").build());
    }

    @Test
    void buildValidatesAsTheConstructorDoes() {
        var e = assertThrows(
                IllegalArgumentException.class,
                () -> SamplingParams.builder().topP(0f).build());
        assertEquals("top_p is out of range: 0.0", e.getMessage());
        e = assertThrows(
                IllegalArgumentException.class,
                () -> SamplingParams.builder().temperature(Float.NaN).build());
        assertTrue(e.getMessage().startsWith("temperature"), e.getMessage());
        e = assertThrows(
                IllegalArgumentException.class,
                () -> SamplingParams.builder().presencePenalty(2.5f).build());
        assertTrue(e.getMessage().startsWith("presence_penalty"), e.getMessage());
        e = assertThrows(
                IllegalArgumentException.class,
                () -> SamplingParams.builder().lazyGrammar("", List.of("x")).build());
        assertEquals("grammar triggers need a grammar", e.getMessage());
        assertThrows(NullPointerException.class, () -> SamplingParams.builder().grammar(null));
        assertThrows(NullPointerException.class, () -> SamplingParams.builder().logitBias(null));
    }

    @Test
    void aBuilderMakesIndependentRecords() {
        SamplingParams.Builder b = SamplingParams.builder().seed(1);
        SamplingParams first = b.build();
        SamplingParams second = b.seed(2).build();
        assertEquals(1, first.seed());
        assertEquals(2, second.seed());
        var bias = new java.util.HashMap<Integer, Float>(Map.of(3, 1f));
        SamplingParams copied = b.logitBias(bias).build();
        bias.put(4, 2f);
        assertEquals(Map.of(3, 1f), copied.logitBias(), "the record copies the map");
    }

    @Test
    void theChainsFieldsDefaultToLlamaServersAndOff() {
        SamplingParams d = SamplingParams.DEFAULTS;
        assertEquals(BuiltinStage.DEFAULT_ORDER, d.samplers());
        assertEquals(1f, d.typicalP());
        assertEquals(-1f, d.topNSigma());
        assertFalse(d.xtc().enabled());
        assertFalse(d.dry().enabled());
        assertEquals(List.of("\n", ":", "\"", "*"), d.dry().sequenceBreakers());
        assertEquals(0, d.mirostatVersion());
        assertEquals(List.of(), d.pluginStages());
    }

    @Test
    void theChainsFieldsAreSetAndChecked() {
        SamplingParams p = SamplingParams.builder()
                .typicalP(0.5f)
                .topNSigma(1.5f)
                .xtc(new SamplingParams.Xtc(0.5f, 0.1f))
                .dry(new SamplingParams.Dry(0.8f, 1.75f, 2, -1, List.of("\n")))
                .mirostat(new SamplingParams.Mirostat(1, 3f, 0.2f))
                .samplers(List.of(BuiltinStage.TOP_K, BuiltinStage.MIROSTAT))
                .build();
        assertEquals(0.5f, p.typicalP());
        assertEquals(1.5f, p.topNSigma());
        assertTrue(p.xtc().enabled());
        assertTrue(p.dry().enabled());
        assertEquals(1, p.mirostatVersion(), "the field's version wins over the step's default 2");
        assertEquals(
                2,
                SamplingParams.builder()
                        .samplers(List.of(BuiltinStage.MIROSTAT))
                        .build()
                        .mirostatVersion());
        assertFalse(new SamplingParams.Xtc(1f, 0.6f).enabled(), "a threshold above 0.5 is off");
        var e = assertThrows(IllegalArgumentException.class, () -> new SamplingParams.Dry(1f, 0.5f, 2, 64, List.of()));
        assertTrue(e.getMessage().startsWith("dry_base"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new SamplingParams.Mirostat(3, 5f, 0.1f));
        assertThrows(IllegalArgumentException.class, () -> new SamplingParams.Xtc(1.5f, 0.1f));
        assertThrows(
                IllegalArgumentException.class,
                () -> SamplingParams.builder().typicalP(0f).build());
    }

    /** The record with these twelve first fields and every later one at its default, from the canonical constructor. */
    private static SamplingParams defaultsBut(
            float t,
            int k,
            float p,
            float m,
            float rp,
            int rn,
            float fp,
            float pp,
            long seed,
            Map<Integer, Float> bias) {
        return new SamplingParams(
                t,
                k,
                p,
                m,
                rp,
                rn,
                fp,
                pp,
                seed,
                bias,
                "",
                List.of(),
                1f,
                -1f,
                SamplingParams.Xtc.OFF,
                SamplingParams.Dry.OFF,
                SamplingParams.Mirostat.OFF,
                BuiltinStage.DEFAULT_ORDER);
    }
}
