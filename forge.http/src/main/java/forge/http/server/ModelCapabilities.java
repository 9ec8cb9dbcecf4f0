package forge.http.server;

import forge.api.template.ChatTemplate;
import forge.api.template.ToolDefinition;
import forge.runtime.catalog.ModelEntry;
import forge.template.toolkit.calls.GenericToolCalls;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What a model can be asked, as the listings report it ({@code /v1/models}' {@code capabilities},
 * Ollama's {@code /api/show}), and the template a request renders with: one rule for both, so
 * that what is listed is what is served.
 *
 * <p>Tools on any model: a model whose template has a tool-call syntax calls tools in it; one
 * whose template has none (llama-server's built-in formats, a model's own template that never
 * writes calls) gets the generic tool-call format ({@link GenericToolCalls}: the tools described
 * in the system turn, calls in {@code <tool_call>} JSON, forced by grammar when required or named,
 * parsed when the model writes them in auto mode). {@code --strict} keeps such a template as it
 * is: tools are not offered to the model, and a forced call is refused.
 *
 * <p>Images and audio: a model with a multimodal projector reads them ({@link #vision},
 * {@link #audio}); every listing says so from these two.
 */
final class ModelCapabilities {

    private ModelCapabilities() {}

    /** Where a model's tool calls are written: its template's own syntax, or the generic format. */
    enum ToolFormat {
        TEMPLATE,
        GENERIC;

        String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * Whether the model calls tools: every model but, under {@code --strict}, one whose template
     * has no tool-call syntax (known once it is loaded; an unloaded model is not claimed then).
     */
    static boolean tools(ModelEntry e, boolean strict) {
        return !strict || toolFormat(e, true).isPresent();
    }

    /** The format of the model's tool calls, known once it is loaded; empty before, or for none. */
    static Optional<ToolFormat> toolFormat(ModelEntry e, boolean strict) {
        return e.served()
                .flatMap(s -> !s.template().toolCallTriggers().isEmpty()
                        ? Optional.of(ToolFormat.TEMPLATE)
                        : strict ? Optional.empty() : Optional.of(ToolFormat.GENERIC));
    }

    /**
     * Whether the model reads images: once loaded, whether its projector encodes images; before,
     * whether it has a projector to load ({@code --mmproj}, or found beside it).
     */
    static boolean vision(ModelEntry e) {
        return e.served()
                .map(s -> s.model().vision())
                .orElseGet(() -> e.projector().isPresent());
    }

    /** Whether the model reads audio: its loaded projector encodes audio (known once loaded). */
    static boolean audio(ModelEntry e) {
        return e.served().map(s -> s.model().audio()).orElse(false);
    }

    /** The template a request with {@code tools} renders with: the model's, or the generic format around it. */
    static ChatTemplate template(ChatTemplate model, List<ToolDefinition> tools, boolean strict) {
        return strict || tools.isEmpty() ? model : GenericToolCalls.around(model);
    }
}
