package forge.template.llama;

import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import forge.api.template.ChatTemplate;
import forge.api.template.TemplateClaim;
import forge.api.template.TemplateContext;
import forge.api.template.TemplateVariant;
import forge.template.toolkit.TemplateFamily;
import forge.template.toolkit.TemplateFingerprint;
import java.time.LocalDate;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Llama 3.x family: {@code llama3.1}, {@code llama3.2} and {@code llama3.3}. Claims a model
 * from its GGUF chat template (the official templates' distinctive lines; 3.1 and 3.3 ship the
 * same one, so the model's name picks between them), then from {@code general.name} /
 * {@code general.basename}, then, for a GGUF without any template, from Llama 3's signs (the
 * {@code llama} architecture with the {@code llama-bpe} pre-tokenizer), then from the model id and
 * aliases. A GGUF whose own template is none of the official ones (Llama 3.0's, a fine-tune's) is
 * left to the generic engine, which renders that template exactly.
 */
public final class LlamaTemplates extends TemplateFamily {

    static final String LLAMA31 = "llama3.1";
    static final String LLAMA32 = "llama3.2";
    static final String LLAMA33 = "llama3.3";

    /** "llama" then "3", a separator or none, and the minor version 1-3 (not the "1" of "3-1b"). */
    private static final Pattern VERSION = Pattern.compile("llama-?3[.-]?([123])(?![\\db])");

    public LlamaTemplates() {
        super(
                "llama",
                List.of(
                        new TemplateVariant(
                                LLAMA31, "Llama 3.1: header turns, JSON calls, <|python_tag|> built-in tools"),
                        new TemplateVariant(LLAMA32, "Llama 3.2: header turns, JSON calls, today's date"),
                        new TemplateVariant(LLAMA33, "Llama 3.3: as Llama 3.1")));
    }

    /** The official templates, by {@link TemplateFingerprint} (of llama.cpp's {@code models/templates/} files named). */
    static final Map<String, String> OFFICIAL = Map.of(
            // meta-llama-Llama-3.1-8B-Instruct.jinja and meta-llama-Llama-3.3-70B-Instruct.jinja (identical)
            "93c0e9aa3629bbd77e68dbc0f5621f6e6b23aa8d74b932595cdb8d64684526d7", LLAMA31,
            "d82792f95932f1c9cef5c4bd992f171225e3bf8c7b609b4557c9e1ec96be819f",
                    LLAMA32); // meta-llama-Llama-3.2-3B-Instruct.jinja

    @Override
    public ChatTemplate create(String variant, TemplateContext context) {
        return new LlamaTemplate(requireVariant(variant), context.bosToken(), LocalDate::now);
    }

    @Override
    public Optional<TemplateClaim> claim(ModelDescriptor model) {
        // Only Llama's own templates, exactly: a GGUF with another (Llama 3.0's, a fine-tune's,
        // Hermes' or Firefunction's on a Llama base) keeps it, and the generic plugin renders it as
        // written, where llama3.x would add date lines and tool blocks that model never saw.
        return claimInOrder(
                model,
                OFFICIAL,
                v -> v.equals(LLAMA32)
                        ? claim(LLAMA32, 100, "tokenizer.chat_template is Llama 3.2's official one")
                        // 3.1 and 3.3 ship one template: the name says which model it is.
                        : claim(
                                metadataNames(model.metadata()).stream()
                                        .map(LlamaTemplates::variantOf)
                                        .flatMap(Optional::stream)
                                        .findFirst()
                                        .filter(n -> !n.equals(LLAMA32))
                                        .orElse(LLAMA31),
                                100,
                                "tokenizer.chat_template is Llama 3.1/3.3's official one"),
                LlamaTemplates::variantOf,
                LlamaTemplates::claimByLlama3Signs);
    }

    /** A GGUF without any template: Llama 3's signs, the llama architecture with the llama-bpe pre-tokenizer. */
    private static Optional<TemplateClaim> claimByLlama3Signs(ModelMetadata meta) {
        String arch = meta.architecture().orElse("");
        if (arch.equals("llama") && meta.string("tokenizer.ggml.pre").orElse("").equals("llama-bpe")) {
            return claim(
                    LLAMA31, 30, "general.architecture llama with Llama 3's llama-bpe pre-tokenizer, no chat template");
        }
        return Optional.empty();
    }

    /**
     * llama3.1 / 3.2 / 3.3 from a name such as {@code Meta-Llama-3.1-8B-Instruct},
     * {@code Llama 3.2 3B} or {@code llama-3.3-70b-instruct-q4}; plain Llama 3 (another template) is none.
     */
    static Optional<String> variantOf(String name) {
        String n = name.toLowerCase(Locale.ROOT).replace('_', '-').replace(' ', '-');
        Matcher m = VERSION.matcher(n);
        return m.find() ? Optional.of("llama3." + m.group(1)) : Optional.empty();
    }
}
