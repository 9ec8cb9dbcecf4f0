package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import forge.api.backend.Vocabulary;

/** Validation shared by the endpoints besides chat. */
final class Requests {

    private Requests() {
    }

    /** The required {@code model}. */
    static String model(JsonNode body) {
        JsonNode node = body.get("model");
        if (node == null || !node.isTextual() || node.asText().isBlank()) {
            throw ApiError.badRequest("model", "'model' is required and must be a non-empty string");
        }
        return node.asText();
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
                throw ApiError.badRequest(at, at + "[" + i + "] is not a token id of this model (0 to " + (vocab.size() - 1) + ")");
            }
            ids[i] = t.asInt();
        }
        if (ids.length == 0) {
            throw ApiError.badRequest(at, "'" + at + "' is empty");
        }
        return ids;
    }
}
