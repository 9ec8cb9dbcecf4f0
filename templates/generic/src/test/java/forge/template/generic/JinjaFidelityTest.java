package forge.template.generic;

import static org.junit.jupiter.api.Assertions.assertEquals;

import forge.api.TemplateException;
import forge.template.testkit.GoldenCorpus;
import forge.template.toolkit.TemplateCaps;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * How faithfully the generic path renders official chat templates: each template of the
 * golden corpus ({@code templates/golden/templates.json} names its file and BOS/EOS texts) renders
 * every case, and a case passes when the bytes equal Jinja2's, or when both raise (with the same
 * message for {@code raise_exception}). The floors below are what was measured; a change that
 * renders fewer cases right fails here, one that renders more should raise them.
 */
class JinjaFidelityTest {

    /**
     * Byte-identical cases per template, as measured (see the class comment): the family variants
     * render the 17 family cases, every official template of llama.cpp's models/templates/
     * ({@code official/...}) all 32 cases; each renders all of them as Jinja2 does.
     */
    private static final Map<String, Integer> FLOOR = new TreeMap<>(Map.ofEntries(
            Map.entry("qwen2.5", 17),
            Map.entry("qwen3", 17),
            Map.entry("qwen3.5", 17),
            Map.entry("qwen3-coder", 17),
            Map.entry("gemma2", 17),
            Map.entry("gemma4", 17),
            Map.entry("llama3.1", 17),
            Map.entry("llama3.2", 17),
            Map.entry("llama3.3", 17),
            Map.entry("kimi-k2", 17),
            Map.entry("kimi-k2-instruct", 17),
            Map.entry("official/Apertus-8B-Instruct", 32),
            Map.entry("official/Apriel-1.6-15b-Thinker-fixed", 32),
            Map.entry("official/Bielik-11B-v3.0-Instruct", 32),
            Map.entry("official/ByteDance-Seed-OSS", 32),
            Map.entry("official/Cohere2MoE", 32),
            Map.entry("official/CohereForAI-c4ai-command-r-plus-tool_use", 32),
            Map.entry("official/CohereForAI-c4ai-command-r7b-12-2024-tool_use", 32),
            Map.entry("official/GLM-4.6", 32),
            Map.entry("official/GLM-4.7-Flash", 32),
            Map.entry("official/GigaChat3-10B-A1.8B", 32),
            Map.entry("official/GigaChat3.1-10B-A1.8B", 32),
            Map.entry("official/HuggingFaceTB-SmolLM3-3B", 32),
            Map.entry("official/Kimi-K2-Instruct", 32),
            Map.entry("official/Kimi-K2-Thinking", 32),
            Map.entry("official/Kimi-K3", 32),
            Map.entry("official/LFM2-8B-A1B", 32),
            Map.entry("official/LFM2.5-8B-A1B", 32),
            Map.entry("official/LFM2.5-Instruct", 32),
            Map.entry("official/MiMo-VL", 32),
            Map.entry("official/MiniMax-M1", 32),
            Map.entry("official/MiniMax-M2", 32),
            Map.entry("official/MiniMax-M3", 32),
            Map.entry("official/Mistral-Small-3.2-24B-Instruct-2506", 32),
            Map.entry("official/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", 32),
            Map.entry("official/NVIDIA-Nemotron-Nano-v2", 32),
            Map.entry("official/NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use", 32),
            Map.entry("official/NousResearch-Hermes-3-Llama-3.1-8B-tool_use", 32),
            Map.entry("official/Qwen-QwQ-32B", 32),
            Map.entry("official/Qwen-Qwen2.5-7B-Instruct", 32),
            Map.entry("official/Qwen-Qwen3-0.6B", 32),
            Map.entry("official/Qwen3-Coder", 32),
            Map.entry("official/Qwen3.5-4B", 32),
            Map.entry("official/Reka-Edge", 32),
            Map.entry("official/Spark2.5", 32),
            Map.entry("official/StepFun3.5-Flash", 32),
            Map.entry("official/deepseek-ai-DeepSeek-R1-Distill-Llama-8B", 32),
            Map.entry("official/deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", 32),
            Map.entry("official/deepseek-ai-DeepSeek-V3.1", 32),
            Map.entry("official/deepseek-ai-DeepSeek-V3.2", 32),
            Map.entry("official/deepseek-ai-DeepSeek-V4-Flash-0731", 32),
            Map.entry("official/deepseek-ai-DeepSeek-V4", 32),
            Map.entry("official/fireworks-ai-llama-3-firefunction-v2", 32),
            Map.entry("official/google-gemma-2-2b-it", 32),
            Map.entry("official/google-gemma-4-31B-it-interleaved", 32),
            Map.entry("official/google-gemma-4-31B-it", 32),
            Map.entry("official/ibm-granite-granite-3.3-2B-Instruct", 32),
            Map.entry("official/ibm-granite-granite-4.0", 32),
            Map.entry("official/ibm-granite-granite-4.1", 32),
            Map.entry("official/inclusionai-ling-3.0-flash", 32),
            Map.entry("official/llama-cpp-deepseek-r1", 32),
            Map.entry("official/llama-cpp-rwkv-world", 32),
            Map.entry("official/meetkai-functionary-medium-v3.1", 32),
            Map.entry("official/meetkai-functionary-medium-v3.2", 32),
            Map.entry("official/meta-llama-Llama-3.1-8B-Instruct", 32),
            Map.entry("official/meta-llama-Llama-3.2-3B-Instruct", 32),
            Map.entry("official/meta-llama-Llama-3.3-70B-Instruct", 32),
            Map.entry("official/microsoft-Phi-3.5-mini-instruct", 32),
            Map.entry("official/mistralai-Ministral-3-14B-Reasoning-2512", 32),
            Map.entry("official/mistralai-Mistral-Nemo-Instruct-2407", 32),
            Map.entry("official/moonshotai-Kimi-K2", 32),
            Map.entry("official/muse-glimmer", 32),
            Map.entry("official/openai-gpt-oss-120b", 32),
            Map.entry("official/openbmb-MiniCPM5-1B", 32),
            Map.entry("official/poolside-Laguna-S-2.1", 32),
            Map.entry("official/poolside-Laguna-XS-2.1", 32),
            Map.entry("official/poolside-Laguna-XS.2", 32),
            Map.entry("official/tencent-Hy3", 32),
            Map.entry("official/unsloth-Apriel-1.5", 32),
            Map.entry("official/unsloth-mistral-Devstral-Small-2507", 32),
            Map.entry("official/upstage-Solar-Open-100B", 32)));

    @Test
    void rendersTheOfficialTemplatesAsJinja2Does() throws IOException {
        GoldenCorpus corpus = GoldenCorpus.locate();
        Path golden = Path.of(System.getProperty("forge.golden.dir", "../golden"))
                .toAbsolutePath()
                .normalize();
        @SuppressWarnings("unchecked")
        Map<String, Object> index = (Map<String, Object>) forge.lib.text.PythonJson.parse(
                Files.readString(golden.resolve("templates.json"), StandardCharsets.UTF_8));
        Map<String, Integer> passed = new TreeMap<>();
        List<String> capsDiffer = new ArrayList<>();
        StringBuilder report = new StringBuilder();
        for (var entry : index.entrySet()) {
            String variant = entry.getKey();
            @SuppressWarnings("unchecked")
            Map<String, Object> spec = (Map<String, Object>) entry.getValue();
            String source = Files.readString(
                    golden.resolve("sources").resolve((String) spec.get("file")), StandardCharsets.UTF_8);
            JinjaChatTemplate template;
            try {
                template = new JinjaChatTemplate(
                        "generic",
                        source,
                        (String) spec.get("bos"),
                        (String) spec.get("eos"),
                        // make_golden.py's strftime_now reads 1 January 2025
                        Clock.fixed(Instant.parse("2025-01-01T00:00:00Z"), ZoneOffset.UTC));
            } catch (TemplateException e) { // a template that does not parse renders no case
                passed.put(variant, 0);
                report.append(String.format(
                        "%-40s %2d/%d  (%s)%n",
                        variant, 0, corpus.expected(variant).size(), e.getMessage()));
                continue;
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> caps = (Map<String, Object>) spec.get("caps");
            TemplateCaps probed =
                    new TemplateCaps((Boolean) caps.get("join_parts"), (Boolean) caps.get("null_as_empty"), (Boolean)
                            caps.get("developer_as_system"));
            if (!probed.equals(template.caps())) {
                capsDiffer.add(variant + ": Jinja2 " + probed + ", here " + template.caps());
            }
            int ok = 0;
            List<GoldenCorpus.Expected> cases = corpus.expected(variant);
            for (GoldenCorpus.Expected expected : cases) {
                String outcome;
                try {
                    String text = template.render(expected.prompt());
                    outcome = expected.text().map(text::equals).orElse(false) ? "ok" : "differs";
                    if (System.getProperty("forge.fidelity.dump") != null && !outcome.equals("ok")) {
                        report.append("---- ")
                                .append(variant)
                                .append('/')
                                .append(expected.caseName())
                                .append("\n>>> got\n")
                                .append(text)
                                .append("\n>>> expected\n")
                                .append(expected.text().orElse(expected.error().orElse("")))
                                .append('\n');
                    }
                } catch (TemplateException e) {
                    boolean same = expected.error().isPresent()
                            && (!expected.raised() || expected.error().get().equals(e.getMessage()));
                    outcome = same ? "ok" : "error: " + e.getMessage();
                    if (System.getProperty("forge.fidelity.dump") != null && !same) {
                        report.append("---- ")
                                .append(variant)
                                .append('/')
                                .append(expected.caseName())
                                .append(" raised ")
                                .append(e.getMessage())
                                .append("\n>>> expected\n")
                                .append(expected.text().orElse(expected.error().orElse("")))
                                .append('\n');
                    }
                }
                if (outcome.equals("ok")) {
                    ok++;
                }
            }
            passed.put(variant, ok);
            report.append(String.format("%-40s %2d/%d%n", variant, ok, cases.size()));
        }
        System.out.println(report);
        if (System.getProperty("forge.fidelity.report") != null) {
            Files.writeString(Path.of(System.getProperty("forge.fidelity.report")), report.toString());
        }
        assertEquals(List.of(), capsDiffer, "each template's probed capabilities agree with make_golden.py's");
        assertEquals(FLOOR.keySet(), passed.keySet(), "every template of the corpus has a floor");
        for (var e : FLOOR.entrySet()) {
            if (passed.get(e.getKey()) < e.getValue()) {
                throw new AssertionError(
                        e.getKey() + ": " + passed.get(e.getKey()) + " cases byte-identical, floor " + e.getValue());
            }
        }
    }
}
