package forge.template.toolkit.calls;

import java.util.Objects;

/**
 * A family's reasoning markers: what a model writes between them is reasoning, the rest content
 * and calls. A family's own business, beside whichever {@link ToolCallSyntax} it writes calls in.
 *
 * {@snippet :
 * new Reasoning("<think>", "</think>", false);   // Qwen 3
 * new Reasoning("<think>", "</think>", true);    // a prompt that ends in "<think>\n": output starts inside
 * Reasoning.NONE;                                 // Llama 3, Kimi K2
 * }
 *
 * @param open         opens reasoning, or empty when the format has none
 * @param close        closes it
 * @param startsInside the prompt already opened reasoning: output begins inside it
 */
public record Reasoning(String open, String close, boolean startsInside) {

    /** No reasoning: every text is content or calls. */
    public static final Reasoning NONE = new Reasoning("", "", false);

    public Reasoning {
        Objects.requireNonNull(open);
        Objects.requireNonNull(close);
    }
}
