package forge.template.kimi;

import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
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
 * The Kimi family: {@code kimi-k2} and {@code kimi-k2-instruct}. Claims a model from its GGUF chat
 * template (distinctive text of each official template), from Kimi's pre-tokenizer
 * ({@code tokenizer.ggml.pre = kimi-k2}: the architecture alone, {@code deepseek2}, is shared with
 * DeepSeek and proves nothing), then from its names.
 */
public final class KimiTemplates extends TemplateFamily {

    static final String KIMI_K2 = "kimi-k2";
    static final String KIMI_K2_INSTRUCT = "kimi-k2-instruct";

    public KimiTemplates() {
        super(
                "kimi",
                List.of(
                        new TemplateVariant(KIMI_K2, "Kimi K2 (original template): section-token tool calls"),
                        new TemplateVariant(
                                KIMI_K2_INSTRUCT, "Kimi K2 Instruct (revised template): section-token tool calls")));
    }

    /** The official templates, by {@link TemplateFingerprint} (of llama.cpp's {@code models/templates/} files named). */
    static final Map<String, String> OFFICIAL = Map.of(
            "aab20feb9bc6881f941ea649356130ffbc4943b3c2577c0991e1fba90de5a0fc", KIMI_K2, // moonshotai-Kimi-K2.jinja
            "02e91795d2270374161c7063c9b1d084bb8cb3fb04b1ae977cf0e2953bdbbf92",
                    KIMI_K2_INSTRUCT); // Kimi-K2-Instruct.jinja

    @Override
    public ChatTemplate create(String variant, TemplateContext context) {
        return new KimiTemplate(requireVariant(variant));
    }

    @Override
    public Optional<TemplateClaim> claim(ModelDescriptor model) {
        // Only Kimi's own K2 templates, exactly: K2 Thinking's, K3's and any other are rendered
        // as written by the generic plugin.
        return claimInOrder(
                model,
                OFFICIAL,
                v -> claim(
                        v,
                        100,
                        v.equals(KIMI_K2)
                                ? "tokenizer.chat_template is Kimi K2's (original)"
                                : "tokenizer.chat_template is Kimi K2 Instruct's (revised)"),
                KimiTemplates::variantOf,
                KimiTemplates::claimByTokenizer);
    }

    /** Kimi's own pre-tokenizer: outranks an architecture-only claim (confidence 30) by another family. */
    private static Optional<TemplateClaim> claimByTokenizer(ModelMetadata meta) {
        if (!meta.string("tokenizer.ggml.pre").orElse("").equals("kimi-k2")) {
            return Optional.empty();
        }
        return claim(
                KIMI_K2_INSTRUCT,
                40,
                "tokenizer.ggml.pre kimi-k2"
                        + meta.architecture()
                                .map(a -> ", general.architecture " + a)
                                .orElse(""));
    }

    /**
     * {@code kimi-k2-instruct} for a K2 Instruct name ({@code Kimi-K2-Instruct-0905-Q4_K_M}),
     * {@code kimi-k2} for other K2 names ({@code kimi_k2}); none for K2 Thinking, whose template
     * reasons and is not one of these.
     */
    static Optional<String> variantOf(String name) {
        String n = name.toLowerCase(Locale.ROOT).replace('_', '-').replace(' ', '-');
        if (!n.matches(".*kimi-?k2(?![.\\d]).*") || n.contains("thinking")) {
            return Optional.empty();
        }
        return Optional.of(n.contains("instruct") ? KIMI_K2_INSTRUCT : KIMI_K2);
    }
}
