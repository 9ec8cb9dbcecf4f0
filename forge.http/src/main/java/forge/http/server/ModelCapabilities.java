package forge.http.server;

import forge.runtime.catalog.ModelEntry;

/**
 * What a model can be asked, as the listings report it ({@code /v1/models}' {@code capabilities},
 * Ollama's {@code /api/show}): one rule for every listing, so that they never disagree.
 */
final class ModelCapabilities {

    private ModelCapabilities() {}

    /**
     * Whether the model calls tools: known once it is loaded, where its template has a tool-call
     * format (its trigger texts).
     */
    static boolean tools(ModelEntry e, boolean strict) {
        return e.served()
                .filter(s -> !s.template().toolCallTriggers().isEmpty())
                .isPresent();
    }
}
