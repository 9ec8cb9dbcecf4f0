package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.api.sampler.BuiltinStage;
import forge.api.sampler.PluginStage;
import forge.api.sampler.SamplerProvider;
import forge.api.sampler.SamplerStage;
import forge.api.sampler.SamplingParams;
import forge.api.sampler.StageArguments;
import forge.api.sampler.StageInfo;
import forge.api.sampler.StageParameter;
import forge.runtime.plugin.SamplerStages;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SamplingChainTest {

    private static final AtomicInteger CREATED = new AtomicInteger();
    private static final StageInfo GUARD = new StageInfo(
            "guard",
            "test",
            List.of(
                    StageParameter.integer("guard_n", 4, 2, 10, "n"), StageParameter.number("guard_p", 0.5, 0, 1, "p"),
                    StageParameter.bool("guard_on", true, "b"), StageParameter.text("guard_s", "x", 4, "s")));
    private static final SamplerProvider PROVIDER = new SamplerProvider() {
        public List<StageInfo> stages() {
            return List.of(GUARD);
        }

        public SamplerStage create(String stage, StageArguments arguments) {
            CREATED.incrementAndGet();
            if (arguments.integer("guard_n") == 3) {
                throw new IllegalArgumentException("3 is refused");
            }
            if (arguments.integer("guard_n") == 9) {
                throw new IllegalStateException("bug");
            }
            return c -> {};
        }
    };
    private static final SamplerStages STAGES =
            new SamplerStages(List.of(new SamplerStages.Stage(GUARD, PROVIDER, "test.guard")));

    private static JsonNode body(String json) {
        return Json.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    private static SamplingParams read(String json) {
        return SamplingChain.read(Fields.of(body(json), STAGES), SamplingParams.builder())
                .build();
    }

    private static ApiError refused(String json) {
        return assertThrows(ApiError.class, () -> read(json));
    }

    @Test
    void withoutItsFieldsTheChainIsLlamaServersDefault() {
        assertEquals(SamplingParams.DEFAULTS, read("{}"));
    }

    @Test
    void readsTheOrderAsNamesAliasesOrLetters() {
        assertEquals(
                List.of(BuiltinStage.TOP_K, BuiltinStage.TOP_P, BuiltinStage.TEMPERATURE),
                read("{\"samplers\": [\"top-k\", \"nucleus\", \"Temp\"]}").samplers());
        assertEquals(
                List.of(BuiltinStage.PENALTIES, BuiltinStage.TOP_K, BuiltinStage.TEMPERATURE),
                read("{\"samplers\": \"ekt\"}").samplers());
        assertEquals(List.of(), read("{\"samplers\": []}").samplers(), "no stage: only the draw");
    }

    @Test
    void readsThePluginStagesParametersAndLetsThePluginCheckThem() {
        int before = CREATED.get();
        SamplingParams p = read(
                "{\"samplers\": [\"guard\", \"top_k\", \"guard\"], \"guard_n\": 5, \"guard_on\": false, \"guard_s\": \"ab\"}");
        assertEquals(before + 1, CREATED.get(), "made once, to check, and shared by both places");
        PluginStage stage = assertInstanceOf(PluginStage.class, p.samplers().getFirst());
        assertEquals(5L, stage.arguments().integer("guard_n"));
        assertEquals(0.5, stage.arguments().number("guard_p"), "the default");
        assertEquals(false, stage.arguments().bool("guard_on"));
        assertEquals("ab", stage.arguments().text("guard_s"));
        assertEquals(List.of(stage, stage), p.pluginStages());

        ApiError e = refused("{\"samplers\": [\"guard\"], \"guard_n\": 3}");
        assertEquals(400, e.status());
        assertEquals("guard", e.param());
        assertTrue(e.getMessage().contains("3 is refused"), e.getMessage());
        ApiError bug = refused("{\"samplers\": [\"guard\"], \"guard_n\": 9}");
        assertEquals(500, bug.status());
        assertEquals("sampler_stage_failed", bug.code());
        assertTrue(bug.getMessage().contains("'guard'") && bug.getMessage().contains("bug"), bug.getMessage());
    }

    @Test
    void anUnknownStageOrAMalformedOrderIsA400() {
        for (String bad : List.of(
                "{\"samplers\": [\"nope\"]}",
                "{\"samplers\": \"kq\"}",
                "{\"samplers\": [1]}",
                "{\"samplers\": {}}",
                "{\"samplers\": \"" + "k".repeat(33) + "\"}")) {
            ApiError e = refused(bad);
            assertEquals(400, e.status(), bad);
            assertEquals("samplers", e.param(), bad);
        }
        assertTrue(refused("{\"samplers\": [\"nope\"]}").getMessage().contains("from plugins: [guard]"));
        assertThrows(
                ApiError.class,
                () -> SamplingChain.read(Fields.of(body("{\"samplers\": [\"guard\"]}")), SamplingParams.builder()),
                "a server without the plugin does not know the stage");
    }

    @Test
    void readsTheBuiltInStagesFieldsWithLlamaServersRules() {
        SamplingParams p = read("""
                {"typical_p": 0.7, "top_n_sigma": 1.5, "xtc_probability": 0.5, "xtc_threshold": 0.2,
                 "dry_multiplier": 0.8, "dry_base": 0.5, "dry_allowed_length": 3, "dry_penalty_last_n": -1,
                 "dry_sequence_breakers": ["\\n", "."], "mirostat": 2, "mirostat_tau": 4, "mirostat_eta": 0.2}""");
        assertEquals(0.7f, p.typicalP());
        assertEquals(1.5f, p.topNSigma());
        assertEquals(new SamplingParams.Xtc(0.5f, 0.2f), p.xtc());
        assertEquals(
                new SamplingParams.Dry(0.8f, 1.75f, 3, -1, List.of("\n", ".")),
                p.dry(),
                "a base below 1 means the default");
        assertEquals(new SamplingParams.Mirostat(2, 4f, 0.2f), p.mirostat());
    }

    /** A stage's field of the wrong type or out of its range, built in or of a plugin stage (named), is a 400 naming it. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            guard_n               | {"samplers": ["guard"], "guard_n": 11}
            guard_n               | {"samplers": ["guard"], "guard_n": 2.5}
            guard_p               | {"samplers": ["guard"], "guard_p": "high"}
            guard_on              | {"samplers": ["guard"], "guard_on": 1}
            guard_s               | {"samplers": ["guard"], "guard_s": "toolong"}
            mirostat              | {"mirostat": 3}
            xtc_threshold         | {"xtc_threshold": 1.5}
            dry_sequence_breakers | {"dry_sequence_breakers": []}
            dry_sequence_breakers | {"dry_sequence_breakers": [""]}
            dry_penalty_last_n    | {"dry_penalty_last_n": -2}
            """)
    void aFieldOfTheWrongTypeOrOutOfRangeIsA400NamingIt(String param, String json) {
        ApiError e = refused(json);
        assertEquals(400, e.status(), json);
        assertEquals(param, e.param(), json);
    }

    /** What the chain read after {@code json}, as the body's ignored fields say. */
    private static Set<String> ignoredAfterReading(String json) {
        Fields fields = Fields.of(body(json), STAGES);
        SamplingChain.read(fields, SamplingParams.builder());
        return fields.ignored();
    }

    @Test
    void aStagesParametersAreReadOnlyWhenTheStageIsNamed() {
        assertEquals(Set.of(), ignoredAfterReading("{\"samplers\": [\"guard\"], \"guard_n\": 5, \"typical_p\": 0.9}"));
        assertEquals(Set.of("guard_n"), ignoredAfterReading("{\"guard_n\": 3}"));
        assertEquals(Set.of("guard_n"), ignoredAfterReading("{\"samplers\": [\"top_k\"], \"guard_n\": 3}"));
    }

    /**
     * {@code count_tokens} reads a body as {@code /v1/messages} does, with the same server's
     * stages: under {@code --strict} it cannot refuse a body {@code /v1/messages} accepts.
     */
    @Test
    void countTokensReadsAPluginStagesParametersAsMessagesDoes() {
        String json = """
                {"max_tokens": 8, "samplers": ["guard", "temperature"], "guard_n": 5, "messages": [{"role": "user", "content": "x"}]}""";
        ChatRequest messages = MessagesRequest.parse(Fields.of(body(json), STAGES), true);
        ChatRequest count = MessagesRequest.parse(Fields.of(body(json), STAGES), false);
        assertEquals(Set.of(), messages.ignored());
        assertEquals(messages.ignored(), count.ignored());
        Strictness.check(true, count.ignored());
        // What neither reads is named by both.
        String unknown = json.replace("\"guard_n\"", "\"guard_m\"");
        assertEquals(
                Set.of("guard_m"),
                MessagesRequest.parse(Fields.of(body(unknown), STAGES), false).ignored());
        assertThrows(
                ApiError.class,
                () -> Strictness.check(
                        true,
                        MessagesRequest.parse(Fields.of(body(unknown), STAGES), false)
                                .ignored()));
    }
}
