package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import forge.api.BackendException;
import forge.api.backend.ContextParams;
import forge.api.backend.FlashAttention;
import forge.api.backend.InferenceContext;
import forge.api.backend.KvCacheType;
import forge.api.backend.LoadProgress;
import forge.api.backend.LoadedModel;
import forge.api.backend.ModelLoadParams;
import forge.api.backend.TokenSampler;
import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import forge.api.sampler.SamplingParams;
import forge.api.template.ChatTemplate;
import forge.api.template.ChatTemplateProvider;
import forge.api.template.TemplateContext;
import forge.api.template.ToolDefinition;
import forge.lib.gguf.synth.SynthSpec;
import forge.lib.gguf.synth.SyntheticModels;
import forge.runtime.ForgeRuntime;
import forge.runtime.RuntimeConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** llama.cpp accepts every tool-call grammar the Qwen and Kimi templates write, with the caller's argument rules before it. */
class ToolCallGrammarTest {

    @TempDir
    static Path work;

    static ForgeRuntime runtime;
    static LoadedModel model;
    static InferenceContext context;

    /** What the caller defines first: one rule per tool for its JSON arguments (a loose object here). */
    private static final String ARGUMENT_RULES = """
            args-ws ::= [ \\t\\n]*
            args-str ::= "\\"" [^"\\\\]* "\\""
            args-get-weather ::= "{" args-ws args-str args-ws ":" args-ws (args-str | [0-9]+) args-ws "}"
            args-search ::= "{" args-ws "}"
            """;

    private static final List<ToolDefinition> TOOLS =
            List.of(new ToolDefinition("get_weather", "", schema("""
                    {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "number"}, "n": {"type": "integer"},
                     "exact": {"type": "boolean"}, "where": {"type": "object"}, "tags": {"type": "array"},
                     "note": {"type": ["string", "null"]}, "unit": {"enum": ["celsius", "fahrenheit"]}, "any": {}},
                     "required": ["city"]}""")), new ToolDefinition("search", "", Map.of()));

    /** A schema as the server reads a request's tool parameters: with Jackson. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> schema(String json) {
        try {
            return new ObjectMapper().readValue(json, Map.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    @BeforeAll
    static void load() {
        System.setProperty("forge.user.home", work.resolve("user-home").toString());
        Path file = work.resolve("tiny.gguf");
        SyntheticModels.write(SynthSpec.tiny("qwen"), file);
        runtime = ForgeRuntime.start(new RuntimeConfig(
                RuntimeConfig.defaultHome(), List.of(), "", RuntimeConfig.settingsFromSystemProperties()));
        model = runtime.backend().load(ModelLoadParams.of(file), LoadProgress.NONE);
        context = model.newContext(
                new ContextParams(256, 64, 64, 1, 2, 2, FlashAttention.AUTO, KvCacheType.F16, true, false));
    }

    @AfterAll
    static void close() {
        if (context != null) {
            context.close();
        }
        if (model != null) {
            model.close();
        }
        if (runtime != null) {
            runtime.close();
        }
    }

    /** The variant as the server resolves the name: a family's before the generic plugin's llama-server name of the same spelling. */
    private static ChatTemplate template(String variant) {
        ChatTemplateProvider p = runtime.templates()
                .providerOf(variant)
                .orElseThrow(() -> new AssertionError("no plugin renders " + variant));
        return p.create(
                variant,
                new TemplateContext(
                        new ModelDescriptor("m", List.of(), Path.of("m.gguf"), ModelMetadata.EMPTY), "", ""));
    }

    private static void parse(String grammar) {
        try (TokenSampler s = context.sampler(
                SamplingParams.GREEDY.toBuilder().grammar(grammar).build())) {
            assertTrue(s != null);
        }
    }

    @Test
    void llamaCppParsesEveryToolCallGrammar() {
        for (String variant : List.of("qwen2.5", "qwen3", "qwen3.5", "qwen3-coder", "kimi-k2", "kimi-k2-instruct")) {
            for (boolean parallel : List.of(false, true)) {
                String grammar = ARGUMENT_RULES
                        + template(variant)
                                .toolCallGrammar(
                                        TOOLS,
                                        Map.of("get_weather", "args-get-weather", "search", "args-search"),
                                        parallel)
                                .orElseThrow();
                assertDoesNotThrow(
                        () -> parse(grammar), () -> variant + (parallel ? " (parallel)" : "") + ":\n" + grammar);
            }
        }
    }

    @Test
    void aBrokenGrammarIsRejected() {
        // The check above can fail: a grammar that names a rule nobody defined is refused.
        String grammar = template("kimi-k2")
                .toolCallGrammar(TOOLS, Map.of("get_weather", "nope", "search", "args-search"), false)
                .orElseThrow();
        assertThrows(BackendException.class, () -> parse(ARGUMENT_RULES + grammar));
    }
}
