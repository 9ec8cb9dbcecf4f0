package forge.template.gemma;

import forge.api.model.ModelDescriptor;
import forge.api.template.ChatTemplate;
import forge.api.template.TemplateClaim;
import forge.api.template.TemplateContext;
import forge.api.template.TemplateVariant;
import forge.template.toolkit.TemplateFamily;
import forge.template.toolkit.TemplateFingerprint;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Gemma family: {@code gemma2} (Gemma 2 and Gemma 3) and {@code gemma4}. Claims a model from
 * its GGUF chat template (the official templates' turn markers), then {@code general.name} /
 * {@code general.basename}, then {@code general.architecture} ({@code gemma2}, {@code gemma3},
 * {@code gemma3n}, {@code gemma4}), then the model id and aliases. A GGUF that carries a Gemma
 * template these variants do not reproduce (Gemma 3's own, Gemma 4's interleaved one) is left
 * to the generic Jinja engine.
 */
public final class GemmaTemplates extends TemplateFamily {

    static final String GEMMA2 = "gemma2";
    static final String GEMMA4 = "gemma4";

    /** "gemma", a separator or none, and the generation (1-4); "codegemma" and "gemma-2b" are Gemma 1. */
    private static final Pattern VERSION = Pattern.compile("gemma-?([1-4])(?![\\db.])(n)?");

    public GemmaTemplates() {
        super(
                "gemma",
                List.of(
                        new TemplateVariant(GEMMA2, "Gemma 2 / Gemma 3: user/model turns, no system role, no tools"),
                        new TemplateVariant(GEMMA4, "Gemma 4: system turn, thought channel, <|tool_call> calls")));
    }

    /** The official templates, by {@link TemplateFingerprint} (of llama.cpp's {@code models/templates/} files named). */
    static final Map<String, String> OFFICIAL = Map.of(
            "ecd6ae513fe103f0eb62e8ab5bfa8d0fe45c1074fa398b089c93a7e70c15cfd6", GEMMA2, // google-gemma-2-2b-it.jinja
            "1d35a24a2a63cc600c0cab43628a6df4cd3318e959b03307cf5f9f7e29ecf783", GEMMA4); // google-gemma-4-31B-it.jinja

    @Override
    public ChatTemplate create(String variant, TemplateContext context) {
        return switch (requireVariant(variant)) {
            case GEMMA2 -> new Gemma2Template(context.bosToken());
            default -> new Gemma4Template(context.bosToken());
        };
    }

    @Override
    public Optional<TemplateClaim> claim(ModelDescriptor model) {
        // Only Gemma's own templates, exactly: Gemma 3's (which folds a system turn into the
        // first user turn), Gemma 4's "interleaved" one and other <start_of_turn> templates print
        // what neither variant prints, and the generic plugin renders them as written.
        return claimInOrder(
                model, OFFICIAL, GemmaTemplates::variantOf, byArchitecture(GemmaTemplates::variantOfArchitecture));
    }

    /** The variant of a GGUF without a template, by its {@code general.architecture}: Gemma 3's is gemma2's. */
    static Optional<String> variantOfArchitecture(String arch) {
        if (arch.equals("gemma4")) {
            return Optional.of(GEMMA4);
        }
        return arch.equals("gemma2") || arch.startsWith("gemma3") ? Optional.of(GEMMA2) : Optional.empty();
    }

    /** gemma2 / gemma4 from a name such as {@code gemma-2-9b-it}, {@code gemma-3-4b-it-Q4_K_M} or {@code Gemma 4 31B}. */
    static Optional<String> variantOf(String name) {
        String n = name.toLowerCase(Locale.ROOT).replace('_', '-').replace(' ', '-');
        Matcher m = VERSION.matcher(n);
        while (m.find()) {
            switch (m.group(1)) {
                case "2", "3" -> {
                    return Optional.of(GEMMA2);
                }
                case "4" -> {
                    return Optional.of(GEMMA4);
                }
                default -> {
                    // Gemma 1 has another template (it accepts no system turn either, but alternates differently).
                }
            }
        }
        return Optional.empty();
    }
}
