package forge.template.qwen;

import forge.api.model.ModelDescriptor;
import forge.api.template.ChatTemplate;
import forge.api.template.ChatTemplateProvider;
import forge.api.template.TemplateClaim;
import forge.api.template.TemplateContext;
import forge.api.template.TemplateVariant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The Qwen family: {@code qwen2.5}, {@code qwen3}, {@code qwen3.5} and {@code qwen3-coder}. Claims a model from its GGUF chat template
 * (distinctive sentences of each official template), then from its architecture and names.
 */
public final class QwenTemplates implements ChatTemplateProvider {

    static final String QWEN25 = "qwen2.5";
    static final String QWEN3 = "qwen3";
    static final String QWEN35 = "qwen3.5";
    static final String QWEN3_CODER = "qwen3-coder";

    @Override
    public String family() {
        return "qwen";
    }

    @Override
    public List<TemplateVariant> variants() {
        return List.of(new TemplateVariant(QWEN25, "Qwen 2.5 / 2.5-Coder: ChatML, <tool_call> JSON"),
                new TemplateVariant(QWEN3, "Qwen 3: ChatML, <think> reasoning, <tool_call> JSON"),
                new TemplateVariant(QWEN35, "Qwen 3.5: ChatML, <think> reasoning, <tool_call> XML"),
                new TemplateVariant(QWEN3_CODER, "Qwen3-Coder: ChatML, tools and <tool_call> in XML"));
    }

    @Override
    public ChatTemplate create(String variant, TemplateContext context) {
        if (!variants().stream().anyMatch(v -> v.name().equals(variant))) {
            throw new IllegalArgumentException("unknown variant '" + variant + "' of family qwen");
        }
        return variant.equals(QWEN35) || variant.equals(QWEN3_CODER) ? new QwenXmlTemplate(variant) : new QwenTemplate(variant);
    }

    @Override
    public Optional<TemplateClaim> claim(ModelDescriptor model) {
        var meta = model.metadata();
        Optional<String> tpl = meta.chatTemplate();
        if (tpl.isPresent()) {
            String t = tpl.get();
            if (t.contains("<function=example_function_name>") && t.contains("This is the value for the second parameter")) {
                return Optional.of(new TemplateClaim(QWEN35, TemplateClaim.Rule.METADATA, 100, "tokenizer.chat_template is Qwen 3.5's"));
            }
            if (t.contains("You are Qwen, a helpful AI assistant that can interact with a computer to solve tasks.")
                    && t.contains("<function=example_function_name>")) {
                return Optional.of(new TemplateClaim(QWEN3_CODER, TemplateClaim.Rule.METADATA, 100, "tokenizer.chat_template is Qwen3-Coder's"));
            }
            if (t.contains("You are Qwen, created by Alibaba Cloud") && t.contains("<tool_call>")) {
                return Optional.of(new TemplateClaim(QWEN25, TemplateClaim.Rule.METADATA, 100, "tokenizer.chat_template is Qwen 2.5's"));
            }
            if (t.contains("ns.last_query_index") && t.contains("<think>") && t.contains("{\\\"name\\\": <function-name>")) {
                return Optional.of(new TemplateClaim(QWEN3, TemplateClaim.Rule.METADATA, 100, "tokenizer.chat_template is Qwen 3's"));
            }
        }
        List<String> names = new ArrayList<>();
        meta.name().ifPresent(names::add);
        meta.basename().ifPresent(names::add);
        for (String n : names) {
            Optional<String> v = variantOf(n);
            if (v.isPresent()) {
                return Optional.of(new TemplateClaim(v.get(), TemplateClaim.Rule.METADATA, 50, "general.name '" + n + "'"));
            }
        }
        String arch = meta.architecture().orElse("");
        // A GGUF that carries a template none of the official ones keeps it (a fine-tune's own
        // format): the generic engine renders it exactly. The architecture decides only when the
        // file has no template at all.
        if (meta.chatTemplate().isPresent()) {
            arch = "";
        }
        if (arch.equals("qwen35") || arch.equals("qwen35moe")) {
            return Optional.of(new TemplateClaim(QWEN35, TemplateClaim.Rule.METADATA, 30, "general.architecture " + arch));
        }
        if (arch.equals("qwen3") || arch.equals("qwen3moe")) {
            return Optional.of(new TemplateClaim(QWEN3, TemplateClaim.Rule.METADATA, 30, "general.architecture " + arch));
        }
        if (arch.equals("qwen2")) {
            return Optional.of(new TemplateClaim(QWEN25, TemplateClaim.Rule.METADATA, 30, "general.architecture " + arch));
        }
        return TemplateClaim.byName(model, QwenTemplates::variantOf);
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
