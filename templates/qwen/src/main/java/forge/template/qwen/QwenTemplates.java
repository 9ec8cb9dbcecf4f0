package forge.template.qwen;

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

/**
 * The Qwen family: {@code qwen2.5}, {@code qwen3}, {@code qwen3.5} and {@code qwen3-coder}. Claims a model whose GGUF chat
 * template is one of Qwen's official templates exactly ({@link TemplateFingerprint}); a model without a template by its
 * names, then its architecture.
 */
public final class QwenTemplates extends TemplateFamily {

    static final String QWEN25 = "qwen2.5";
    static final String QWEN3 = "qwen3";
    static final String QWEN35 = "qwen3.5";
    static final String QWEN3_CODER = "qwen3-coder";

    /**
     * The official templates, by {@link TemplateFingerprint} (of llama.cpp's
     * {@code models/templates/} files named in each comment, which are the models' own).
     */
    static final Map<String, String> OFFICIAL = Map.of(
            "55b2f4a26ac9ee719330a61a0c39d9e538b0e9322212f048326318cff4f8674a",
                    QWEN25, // Qwen-Qwen2.5-7B-Instruct.jinja
            "87a2728cb8dc9fe424d624542f6060ec05a1d285ebbec578bb078900e33396b5", QWEN3, // Qwen-Qwen3-0.6B.jinja
            "a4aee8afcf2e0711942cf848899be66016f8d14a889ff9ede07bca099c28f715", QWEN35, // Qwen3.5-4B.jinja
            "eae48a3307931acb10a6fce475a36b711709672ea79ee1a9bc52f083d8b0a2af", QWEN3_CODER); // Qwen3-Coder.jinja

    public QwenTemplates() {
        super(
                "qwen",
                List.of(
                        new TemplateVariant(QWEN25, "Qwen 2.5 / 2.5-Coder: ChatML, <tool_call> JSON"),
                        new TemplateVariant(QWEN3, "Qwen 3: ChatML, <think> reasoning, <tool_call> JSON"),
                        new TemplateVariant(QWEN35, "Qwen 3.5: ChatML, <think> reasoning, <tool_call> XML"),
                        new TemplateVariant(QWEN3_CODER, "Qwen3-Coder: ChatML, tools and <tool_call> in XML")));
    }

    @Override
    public ChatTemplate create(String variant, TemplateContext context) {
        requireVariant(variant);
        return variant.equals(QWEN35) || variant.equals(QWEN3_CODER)
                ? new QwenXmlTemplate(variant)
                : new QwenTemplate(variant);
    }

    @Override
    public Optional<TemplateClaim> claim(ModelDescriptor model) {
        // Only Qwen's own templates, exactly: Seed-OSS, Nemotron-3-Nano, StepFun-3.5, Reka-Edge
        // and others copy Qwen's tool-calling prompt and render differently around it. A template
        // that is not Qwen's own is rendered as written by the generic plugin, whatever the name.
        return claimInOrder(
                model, OFFICIAL, QwenTemplates::variantOf, byArchitecture(QwenTemplates::variantOfArchitecture));
    }

    /** The variant of a GGUF without a template, by its {@code general.architecture}. */
    static Optional<String> variantOfArchitecture(String arch) {
        return switch (arch) {
            case "qwen35", "qwen35moe" -> Optional.of(QWEN35);
            case "qwen3", "qwen3moe" -> Optional.of(QWEN3);
            case "qwen2" -> Optional.of(QWEN25);
            default -> Optional.empty();
        };
    }

    /**
     * The variant a name such as {@code Qwen2.5-Coder-7B-Instruct-Q4_K_M}, {@code qwen3_4b},
     * {@code Qwen3.5-4B} or {@code Qwen3-Coder-30B-A3B-Instruct-Q4_K_M} names.
     */
    static Optional<String> variantOf(String name) {
        String n = name.toLowerCase(Locale.ROOT).replace('_', '-').replace(' ', '-');
        if (n.matches(".*qwen-?3\\.5(?!\\d).*")) {
            return Optional.of(QWEN35);
        }
        if (n.matches(".*qwen-?3-?coder.*")) {
            return Optional.of(QWEN3_CODER);
        }
        if (n.matches(".*qwen-?3(?![.\\d]).*") && !n.contains("coder")) {
            return Optional.of(QWEN3);
        }
        if (n.matches(".*qwen-?2(\\.5)?(?!\\d).*")) {
            return Optional.of(QWEN25);
        }
        return Optional.empty();
    }
}
