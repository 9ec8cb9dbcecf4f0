package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import forge.api.backend.Vocabulary;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import java.util.List;

/** Validation shared by the endpoints besides chat. */
final class Requests {

    private Requests() {}

    /** Model ids are file stems, aliases and catalog ids: longer names are not ids. */
    static final int MAX_MODEL_LENGTH = 512;
    /** OpenAI's end-user id, which no route uses but every route checks. */
    static final int MAX_USER_LENGTH = 512;

    /**
     * The {@code model} named: a non-empty string, or the empty string when the body leaves it out,
     * which {@link #entry} accepts when the server serves one model. {@code null} is not a model.
     * Also checks the parameters every route shares ({@code user}).
     */
    static String model(JsonNode body) {
        // Checked for every door, used by Responses alone (which reads it itself): elsewhere it is ignored.
        Params.string(Fields.unrecorded(body), "user", "", MAX_USER_LENGTH);
        JsonNode node = body.get("model");
        if (node == null) {
            return "";
        }
        if (!node.isTextual() || node.asText().isBlank()) {
            throw ApiError.badRequest("model", "'model' must be a non-empty string");
        }
        if (node.asText().length() > MAX_MODEL_LENGTH) {
            throw ApiError.badRequest("model", "'model' is longer than " + MAX_MODEL_LENGTH + " characters");
        }
        return node.asText();
    }

    /**
     * The model a request is for: the one named, or, when it names none, the server's only model
     * (as llama-server, which serves one, ignores the field); 404 for an unknown name, 400 when
     * none is named and there are several to choose from.
     */
    static ModelEntry entry(ModelCatalog catalog, String name) {
        if (name.isEmpty()) {
            List<ModelEntry> all = catalog.entries();
            if (all.size() != 1) {
                throw ApiError.badRequest(
                        "model",
                        "'model' is required: this server serves " + all.size() + " models ("
                                + String.join(
                                        ", ", all.stream().map(ModelEntry::id).toList()) + ")");
            }
            return all.getFirst();
        }
        return catalog.find(name).orElseThrow(() -> ForgeServer.unknownModel(name));
    }

    /** An array of token ids, each checked against the vocabulary: an unknown id would read out of bounds natively. */
    static int[] tokens(JsonNode node, Vocabulary vocab, String at) {
        if (node == null || !node.isArray()) {
            throw ApiError.badRequest(at, "'" + at + "' must be an array of token ids");
        }
        int[] ids = new int[node.size()];
        for (int i = 0; i < ids.length; i++) {
            JsonNode t = node.get(i);
            if (!t.isIntegralNumber() || t.asLong() < 0 || t.asLong() >= vocab.size()) {
                throw ApiError.badRequest(
                        at, at + "[" + i + "] is not a token id of this model (0 to " + (vocab.size() - 1) + ")");
            }
            ids[i] = t.asInt();
        }
        if (ids.length == 0) {
            throw ApiError.badRequest(at, "'" + at + "' is empty");
        }
        return ids;
    }
}
