package forge.http.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/** The one configured Jackson mapper, and small helpers around it. */
final class Json {

    /** Requests nest far less than this; deeper input is refused before it costs stack. */
    static final int MAX_NESTING = 64;

    static final ObjectMapper MAPPER = JsonMapper.builder()
            .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .build();

    static {
        MAPPER.getFactory().setStreamReadConstraints(StreamReadConstraints.builder()
                .maxNestingDepth(MAX_NESTING).build());
    }

    private Json() {
    }

    /** Parses a request body; malformed JSON is a 400 that says where. */
    static JsonNode parse(byte[] body) {
        if (body.length == 0) {
            throw ApiError.badRequest(null, "the request body is empty; expected a JSON object");
        }
        try {
            JsonNode node = MAPPER.readTree(body);
            if (node == null || !node.isObject()) {
                throw ApiError.badRequest(null, "the request body must be a JSON object");
            }
            return node;
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
            throw ApiError.badRequest(null, "malformed JSON" + where + ": " + e.getOriginalMessage());
        } catch (java.io.IOException e) {
            throw ApiError.badRequest(null, "unreadable request body: " + e.getMessage());
        }
    }

    static byte[] bytes(JsonNode node) {
        try {
            return MAPPER.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static String string(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
