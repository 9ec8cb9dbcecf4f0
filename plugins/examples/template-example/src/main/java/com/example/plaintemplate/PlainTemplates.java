package com.example.plaintemplate;

import forge.api.model.ModelDescriptor;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.ChatTemplateProvider;
import forge.api.template.TemplateClaim;
import forge.api.template.TemplateContext;
import forge.api.template.TemplateVariant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The {@code plain} family: one variant, {@code plain-1}. It claims, by name, the models whose id
 * says {@code base} (a weak claim, so that a family that recognises the model's metadata wins).
 * Stateless and cheap, as every provider must be: the work is in {@link #create}.
 */
public final class PlainTemplates implements ChatTemplateProvider {

    static final String VARIANT = "plain-1";

    @Override
    public String family() {
        return "plain";
    }

    @Override
    public List<TemplateVariant> variants() {
        return List.of(new TemplateVariant(VARIANT, "plain User:/Assistant: turns, for base models"));
    }

    @Override
    public Optional<TemplateClaim> claim(ModelDescriptor model) {
        return model.id().toLowerCase(Locale.ROOT).contains("base")
                ? Optional.of(new TemplateClaim(VARIANT, TemplateClaim.Rule.NAME, 10, "the model id says base"))
                : Optional.empty();
    }

    @Override
    public ChatTemplate create(String variant, TemplateContext context) {
        if (!variant.equals(VARIANT)) {
            throw new IllegalArgumentException("no variant " + variant);
        }
        return new ChatTemplate() {
            @Override
            public String name() {
                return VARIANT;
            }

            @Override
            public String render(ChatPrompt prompt) {
                StringBuilder sb = new StringBuilder();
                for (ChatMessage m : prompt.messages()) {
                    String who = switch (m.role()) {
                        case SYSTEM, DEVELOPER -> "System";
                        case USER -> "User";
                        case ASSISTANT -> "Assistant";
                        case TOOL -> "Tool";
                    };
                    sb.append(who).append(": ").append(m.content()).append('\n');
                }
                return prompt.addGenerationPrompt() ? sb.append("Assistant:").toString() : sb.toString();
            }

            /** A base model writes the user's next turn itself: stop there. */
            @Override
            public List<String> endOfTurn() {
                return List.of("\nUser:");
            }
        };
    }
}
