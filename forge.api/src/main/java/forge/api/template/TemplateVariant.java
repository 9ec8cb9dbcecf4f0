package forge.api.template;

import java.util.Objects;

/**
 * One chat-template variant a provider renders.
 *
 * @param name        unique across providers, such as {@code qwen2.5}
 * @param description one line for listings
 */
public record TemplateVariant(String name, String description) {
    public TemplateVariant {
        Objects.requireNonNull(name);
        Objects.requireNonNull(description);
        if (name.isBlank()) {
            throw new IllegalArgumentException("variant name is blank");
        }
    }
}
