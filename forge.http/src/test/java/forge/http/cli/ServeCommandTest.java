package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.ForgeException;
import forge.api.backend.FlashAttention;
import forge.api.backend.KvCacheType;
import forge.runtime.catalog.ContextSizing;
import forge.runtime.engine.EngineConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** How {@code forge serve}'s profile and flags become the engine's settings. */
class ServeCommandTest {

    static EngineConfig config(String... args) {
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).parseArgs(args);
        return serve.engineConfig();
    }

    @Test
    void theDefaultProfileIsLlamaServersDefaults() {
        EngineConfig c = config();
        assertEquals("default", c.profile());
        assertEquals(4096, c.contextSize());
        assertEquals(512, c.batchSize());
        assertEquals(512, c.ubatchSize());
        assertEquals(FlashAttention.AUTO, c.flashAttention());
        assertEquals(KvCacheType.F16, c.kvCacheType());
        assertTrue(c.warmup());
    }

    static ContextSizing.Policy policy(String... args) {
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).parseArgs(args);
        return serve.engine.contextPolicy(serve.engineConfig());
    }

    @Test
    void theDefaultContextIsSizedFromTheModelAndTheMemoryAndCOverridesIt() {
        ContextSizing.Policy auto = policy();
        assertTrue(auto.contextSize().isEmpty(), "sized when the model loads");
        assertTrue(auto.availableMemory() > 0, "the free memory is read (Linux)");
        assertTrue(auto.slotsReason().startsWith("-np auto: 2 slots"), auto.slotsReason());
        assertEquals(8192, policy("-c", "8192").contextSize().getAsInt());
        assertEquals(2048, policy("--profile", "low-memory").contextSize().getAsInt(), "another profile sets its own");
        assertEquals("-np 4", policy("-np", "4").slotsReason());
    }

    @Test
    void speculationIsOffUnlessSpecTypeTurnsOnNgramDraftingWithLlamaServersSizes() {
        assertEquals(forge.runtime.engine.Speculation.OFF, config().speculation());
        assertEquals(
                forge.runtime.engine.Speculation.NGRAM,
                config("--spec-type", "ngram-simple").speculation());
        assertEquals(
                new forge.runtime.engine.Speculation(3, 8, 2),
                config(
                                "--spec-type",
                                "ngram-simple",
                                "--spec-ngram-simple-size-n",
                                "3",
                                "--draft-max",
                                "8",
                                "--draft-min",
                                "2")
                        .speculation());
        var e = assertThrows(CommandLine.ParameterException.class, () -> config("--spec-type", "draft-simple"));
        assertTrue(e.getMessage().contains("needs a draft model: --model-draft"), e.getMessage());
        e = assertThrows(CommandLine.ParameterException.class, () -> config("--spec-type", "ngram-map-k"));
        assertTrue(e.getMessage().contains("not supported"), e.getMessage());
        e = assertThrows(
                CommandLine.ParameterException.class,
                () -> config("--spec-type", "ngram-simple", "--draft-max", "2", "--draft-min", "3"));
        assertTrue(e.getMessage().contains("draft minimum"), e.getMessage());
    }

    @Test
    void aDraftModelDraftsWithLlamaServersDraftSizesAndSyntheticAcceptanceIsCheckedAgainstThem() {
        assertEquals(
                forge.runtime.engine.Speculation.draftModel(3, 0, 0f),
                config("-md", "draft.gguf").speculation(),
                "--model-draft alone: draft-simple, llama.cpp's draft n_max 3");
        assertEquals(
                forge.runtime.engine.Speculation.draftModel(6, 1, 0.5f),
                config(
                                "--spec-type",
                                "draft-simple",
                                "--model-draft",
                                "draft.gguf",
                                "--spec-draft-n-max",
                                "6",
                                "--spec-draft-n-min",
                                "1",
                                "--spec-draft-p-min",
                                "0.5")
                        .speculation());
        var e = assertThrows(
                CommandLine.ParameterException.class, () -> config("-md", "draft.gguf", "--spec-draft-p-min", "1.5"));
        assertTrue(e.getMessage().contains("minimum probability"), e.getMessage());
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).parseArgs("-md", "d.gguf", "-ngld", "all", "--spec-synth-len", "2.5");
        assertEquals(Integer.MAX_VALUE, serve.speculation.draftModel().gpuLayers());
        assertEquals(2.5, serve.speculation.synthetic().meanLength(), 1e-6);
        ServeCommand rates = new ServeCommand();
        new CommandLine(rates).parseArgs("-md", "d.gguf", "--spec-synth-rates", "0.9,0.5");
        e = assertThrows(CommandLine.ParameterException.class, rates.speculation::synthetic);
        assertTrue(e.getMessage().contains("must contain 3 values"), e.getMessage());
        ServeCommand ngram = new ServeCommand();
        new CommandLine(ngram).parseArgs("--spec-type", "ngram-simple", "-md", "d.gguf");
        e = assertThrows(CommandLine.ParameterException.class, ngram.speculation::draftModel);
        assertTrue(e.getMessage().contains("draft-simple"), e.getMessage());
        assertEquals(forge.runtime.engine.SyntheticAcceptance.OFF, new SpeculationOptions().synthetic());
    }

    @Test
    void twoSlotsByDefault() {
        assertEquals(2, config().slots());
        assertEquals(2, config("-np", "auto").slots());
        assertEquals(3, config("-np", "3").slots());
        var e = assertThrows(CommandLine.ParameterException.class, () -> config("-np", "0"));
        assertTrue(e.getMessage().contains("-np"), e.getMessage());
        e = assertThrows(CommandLine.ParameterException.class, () -> config("-np", "two"));
        assertEquals("-np/--parallel: a positive number of slots or auto, got 'two'", e.getMessage());
    }

    @Test
    void theDraftModelsGpuLayersAreANumberAutoOrAll() {
        assertEquals(5, draftLayers("5"));
        assertEquals(0, draftLayers(" 0 "));
        assertEquals(-1, draftLayers("auto"));
        assertEquals(Integer.MAX_VALUE, draftLayers("ALL"));
        for (String bad : new String[] {"-1", "many", ""}) {
            var e = assertThrows(CommandLine.ParameterException.class, () -> draftLayers(bad));
            assertEquals("--gpu-layers-draft must be a number of layers, auto or all: " + bad, e.getMessage());
        }
    }

    private static int draftLayers(String layers) {
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).parseArgs("-md", "d.gguf", "-ngld", layers);
        return serve.speculation.draftModel().gpuLayers();
    }

    @Test
    void kvUnifiedAsLlamaServerSpellsIt() {
        assertFalse(config().kvUnified(), "a KV stream per slot by default");
        assertTrue(config("--kv-unified").kvUnified());
        assertTrue(config("-kvu", "-np", "4").kvUnified());
        assertEquals(4096, config("-kvu", "-c", "4096", "-np", "4").slotContext(), "a request may fill the pool");
        assertEquals(1024, config("-c", "4096", "-np", "4").slotContext());
        assertFalse(config("--no-kv-unified").kvUnified());
        assertFalse(config("-no-kvu").kvUnified());
        var e = assertThrows(CommandLine.ParameterException.class, () -> config("-kvu", "-no-kvu"));
        assertTrue(e.getMessage().contains("--no-kv-unified"), e.getMessage());
    }

    @Test
    void flagsWinOverTheProfile() {
        EngineConfig c = config("--profile", "low-memory", "-c", "3000", "-ub", "64", "-t", "3", "--no-warmup");
        assertEquals("low-memory", c.profile());
        assertEquals(3000, c.contextSize());
        assertEquals(256, c.batchSize());
        assertEquals(64, c.ubatchSize());
        assertEquals(3, c.threads());
        assertEquals(3, c.threadsBatch());
        assertEquals(KvCacheType.Q8_0, c.kvCacheType());
        assertFalse(c.warmup());
        assertEquals(
                KvCacheType.F16,
                config("--profile", "low-memory", "--kv-type", "f16").kvCacheType());
        assertEquals(KvCacheType.Q4_0, config("-ctk", "q4_0", "-ctv", "q4_0").kvCacheType());
        assertEquals(
                FlashAttention.ON,
                config("--kv-type", "q4_0").flashAttention(),
                "a quantized V cache needs flash attention");
    }

    @Test
    void settingsThatCannotWorkAreRefusedNamingTheFlag() {
        var e = assertThrows(CommandLine.ParameterException.class, () -> config("--kv-type", "q8_0", "-fa", "off"));
        assertTrue(e.getMessage().contains("flash attention"), e.getMessage());
        e = assertThrows(CommandLine.ParameterException.class, () -> config("-ctk", "q8_0", "-ctv", "f16"));
        assertTrue(e.getMessage().contains("must agree"), e.getMessage());
        e = assertThrows(CommandLine.ParameterException.class, () -> config("--profile", "turbo"));
        assertTrue(e.getMessage().contains("--profile"), e.getMessage());
        e = assertThrows(CommandLine.ParameterException.class, () -> config("--kv-type", "q3_k"));
        assertTrue(e.getMessage().contains("--kv-type"), e.getMessage());
        e = assertThrows(CommandLine.ParameterException.class, () -> config("-fa", "maybe"));
        assertTrue(e.getMessage().contains("auto, on or off"), e.getMessage());
    }

    @Test
    void durationsReadAsTypedAndABadOneIsRefusedNamingItsFlag() {
        assertEquals(Duration.ofMillis(500), Flags.duration("--model-file-settle", "500ms"));
        assertEquals(Duration.ofSeconds(10), Flags.duration("--model-file-settle", "10s"));
        assertEquals(Duration.ofMinutes(2), Flags.duration("--model-file-settle", "2m"));
        ForgeException bad = assertThrows(ForgeException.class, () -> Flags.duration("--model-file-settle", "soon"));
        assertTrue(bad.getMessage().startsWith("--model-file-settle: not a duration"), bad.getMessage());
        ForgeException zero = assertThrows(
                ForgeException.class,
                () -> Flags.positive("--model-file-settle", Flags.duration("--model-file-settle", "0")));
        assertTrue(zero.getMessage().contains("must be more than 0"), zero.getMessage());
    }
}
