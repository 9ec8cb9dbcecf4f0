package forge.template.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.template.ChatTemplateProvider;
import forge.api.template.TemplateClaim;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * llama.cpp's official chat templates ({@code models/templates/*.jinja} of the verified source in
 * {@code forge.llama.home}), and the rule every family obeys on them: it claims exactly its own.
 */
public final class OfficialTemplates {

    private OfficialTemplates() {}

    private static Path dir() {
        return Path.of(System.getProperty("forge.llama.home"), "src/models/templates");
    }

    /** The official template in {@code file} ({@code Qwen-Qwen3-0.6B.jinja}). */
    public static String official(String file) {
        try {
            return Files.readString(dir().resolve(file), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every official template: file name to source, sorted by name. */
    public static Map<String, String> all() {
        Path dir = dir();
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".jinja")).toList()) {
                out.put(f.getFileName().toString(), Files.readString(f, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertTrue(out.size() > 60, "llama.cpp's official templates not found in " + dir);
        return out;
    }

    /**
     * Asserts that {@code provider}, shown each official template in a GGUF named like no model,
     * claims exactly the files in {@code own} (with that variant, by {@link TemplateClaim.Rule#METADATA}),
     * and none of the others, however much of its own templates they copy.
     */
    public static void assertClaimsExactly(ChatTemplateProvider provider, Map<String, String> own) {
        Map<String, String> all = all();
        assertTrue(all.keySet().containsAll(own.keySet()), "official templates " + own.keySet());
        for (var e : all.entrySet()) {
            Optional<TemplateClaim> claim =
                    provider.claim(Models.model("x", Map.of("tokenizer.chat_template", e.getValue())));
            assertEquals(
                    Optional.ofNullable(own.get(e.getKey())),
                    claim.map(TemplateClaim::variant),
                    provider.family() + " on " + e.getKey() + ": "
                            + claim.map(TemplateClaim::reason).orElse("no claim"));
            claim.ifPresent(c -> assertEquals(TemplateClaim.Rule.METADATA, c.rule(), e.getKey()));
        }
    }
}
