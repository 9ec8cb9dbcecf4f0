package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.backend.Vocabulary;
import forge.runtime.catalog.ModelCatalog;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * llama-server's {@code POST /tokenize} and {@code POST /detokenize}, with its shapes:
 * {@code {"content", "add_special", "parse_special", "with_pieces"}} → {@code {"tokens": [...]}}
 * and {@code {"tokens": [...]}} → {@code {"content"}}. llama-server serves one model; here
 * {@code model} chooses one, and may be left out when only one is served.
 */
final class Tokenization {

    private final ModelCatalog catalog;

    Tokenization(ModelCatalog catalog) {
        this.catalog = catalog;
    }

    ObjectNode tokenize(JsonNode body) {
        Vocabulary vocab = vocabulary(body);
        JsonNode content = body.get("content");
        if (content == null || !content.isTextual()) {
            throw ApiError.badRequest("content", "'content' is required and must be a string");
        }
        boolean addSpecial = Params.bool(body, "add_special", false);
        boolean parseSpecial = Params.bool(body, "parse_special", true);
        boolean withPieces = Params.bool(body, "with_pieces", false);
        int[] ids = vocab.tokenize(content.asText(), addSpecial, parseSpecial);
        ObjectNode out = Json.MAPPER.createObjectNode();
        ArrayNode tokens = out.putArray("tokens");
        for (int id : ids) {
            if (!withPieces) {
                tokens.add(id);
                continue;
            }
            ObjectNode t = tokens.addObject().put("id", id);
            byte[] piece = vocab.piece(id, true);
            try {
                t.put(
                        "piece",
                        StandardCharsets.UTF_8
                                .newDecoder()
                                .onMalformedInput(CodingErrorAction.REPORT)
                                .decode(ByteBuffer.wrap(piece))
                                .toString());
            } catch (CharacterCodingException e) {
                // Part of a multi-byte character: llama-server gives the bytes as numbers.
                ArrayNode bytes = t.putArray("piece");
                for (byte b : piece) {
                    bytes.add(b & 0xff);
                }
            }
        }
        return out;
    }

    ObjectNode detokenize(JsonNode body) {
        Vocabulary vocab = vocabulary(body);
        JsonNode node = body.get("tokens");
        int[] ids =
                node != null && node.isArray() && node.isEmpty() ? new int[0] : Requests.tokens(node, vocab, "tokens");
        return Json.MAPPER.createObjectNode().put("content", vocab.detokenize(ids, false, true));
    }

    private Vocabulary vocabulary(JsonNode body) {
        return catalog.serve(Requests.entry(catalog, Requests.model(body))).vocabulary();
    }
}
