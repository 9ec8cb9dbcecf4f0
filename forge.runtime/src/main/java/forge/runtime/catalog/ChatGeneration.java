package forge.runtime.catalog;

import forge.api.template.OutputParser;
import forge.runtime.engine.Generation;
import java.util.Objects;

/**
 * A running chat completion: the engine's generation, the template's parser for its output, and
 * the size of the rendered prompt.
 */
public record ChatGeneration(Generation generation, OutputParser parser, int promptTokens) {
    public ChatGeneration {
        Objects.requireNonNull(generation);
        Objects.requireNonNull(parser);
    }
}
