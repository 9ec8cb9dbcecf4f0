package forge.template.generic;

import static org.junit.jupiter.api.Assertions.assertEquals;

import forge.api.TemplateException;
import forge.template.testkit.GoldenCorpus;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
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

    /** Byte-identical cases per template, as measured (see the class comment). */
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
            Map.entry("generic-only/mistral-nemo", 17),
            Map.entry("generic-only/phi-3.5", 17),
            Map.entry("generic-only/smollm3", 17),
            Map.entry("generic-only/granite-3.3", 17),
            Map.entry("generic-only/deepseek-r1-distill-qwen", 17),
            Map.entry("generic-only/hermes-3", 17)
    ));

    @Test
    void rendersTheOfficialTemplatesAsJinja2Does() throws IOException {
        GoldenCorpus corpus = GoldenCorpus.locate();
        Path golden = Path.of(System.getProperty("forge.golden.dir", "../golden")).toAbsolutePath().normalize();
        @SuppressWarnings("unchecked")
        Map<String, Object> index = (Map<String, Object>) forge.template.toolkit.PythonJson.parse(
                Files.readString(golden.resolve("templates.json"), StandardCharsets.UTF_8));
        Map<String, Integer> passed = new TreeMap<>();
        StringBuilder report = new StringBuilder();
        for (var entry : index.entrySet()) {
            String variant = entry.getKey();
            @SuppressWarnings("unchecked")
            Map<String, Object> spec = (Map<String, Object>) entry.getValue();
            String source = Files.readString(golden.resolve("sources").resolve((String) spec.get("file")), StandardCharsets.UTF_8);
            JinjaChatTemplate template;
            try {
                template = new JinjaChatTemplate("generic", source, (String) spec.get("bos"), (String) spec.get("eos"),
                    // make_golden.py's strftime_now reads 1 January 2025
                    Clock.fixed(Instant.parse("2025-01-01T00:00:00Z"), ZoneOffset.UTC));
            } catch (TemplateException e) { // a template that does not parse renders no case
                passed.put(variant, 0);
                report.append(String.format("%-40s %2d/%d  (%s)%n", variant, 0, corpus.expected(variant).size(), e.getMessage()));
                continue;
            }
            int ok = 0;
            List<GoldenCorpus.Expected> cases = corpus.expected(variant);
            for (GoldenCorpus.Expected expected : cases) {
                String outcome;
                try {
                    String text = template.render(expected.prompt());
                    outcome = expected.text().map(text::equals).orElse(false) ? "ok" : "differs";
                    if (System.getProperty("forge.fidelity.dump") != null && !outcome.equals("ok")) {
                        report.append("---- ").append(variant).append('/').append(expected.caseName()).append("\n>>> got\n")
                                .append(text).append("\n>>> expected\n").append(expected.text().orElse(expected.error().orElse(""))).append('\n');
                    }
                } catch (TemplateException e) {
                    boolean same = expected.error().isPresent() && (!expected.raised() || expected.error().get().equals(e.getMessage()));
                    outcome = same ? "ok" : "error: " + e.getMessage();
                    if (System.getProperty("forge.fidelity.dump") != null && !same) {
                        report.append("---- ").append(variant).append('/').append(expected.caseName()).append(" raised ").append(e.getMessage())
                                .append("\n>>> expected\n").append(expected.text().orElse(expected.error().orElse(""))).append('\n');
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
        assertEquals(FLOOR.keySet(), passed.keySet(), "every template of the corpus has a floor");
        for (var e : FLOOR.entrySet()) {
            if (passed.get(e.getKey()) < e.getValue()) {
                throw new AssertionError(e.getKey() + ": " + passed.get(e.getKey()) + " cases byte-identical, floor " + e.getValue());
            }
        }
    }
}
