package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.backend.Vocabulary;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.ServedModel;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code POST /v1/embeddings}: mean-pooled (or the model's own pooling), L2-normalized embeddings
 * of one or several inputs, as floats or as base64 of little-endian float32, like OpenAI's.
 */
final class Embeddings {

    /** Inputs per request: each is a decode, so a bound keeps one request from holding the model long. */
    static final int MAX_INPUTS = 256;

    private final ModelCatalog catalog;

    Embeddings(ModelCatalog catalog) {
        this.catalog = catalog;
    }

    void handle(Fields body, boolean strict, Response response, Callback callback) {
        String name = Requests.model(body);
        JsonNode input = body.get("input");
        String format = body.path("encoding_format").isMissingNode()
                        || body.get("encoding_format").isNull()
                ? "float"
                : body.get("encoding_format").asText("?");
        if (!body.path("encoding_format").isMissingNode()
                        && !body.get("encoding_format").isNull()
                        && !body.get("encoding_format").isTextual()
                || !Set.of("float", "base64").contains(format)) {
            throw ApiError.badRequest("encoding_format", "'encoding_format' must be \"float\" or \"base64\"");
        }
        Set<String> ignored = body.ignored();
        Strictness.check(strict, ignored);
        Embedded embedded = embed(Requests.entry(catalog, name), input, "input");
        List<float[]> vectors = embedded.vectors();

        ObjectNode out = Json.MAPPER.createObjectNode().put("object", "list");
        ArrayNode data = out.putArray("data");
        for (int i = 0; i < vectors.size(); i++) {
            ObjectNode item = data.addObject().put("object", "embedding").put("index", i);
            float[] v = vectors.get(i);
            if (format.equals("base64")) {
                ByteBuffer bytes = ByteBuffer.allocate(4 * v.length).order(ByteOrder.LITTLE_ENDIAN);
                bytes.asFloatBuffer().put(v);
                item.put("embedding", Base64.getEncoder().encodeToString(bytes.array()));
            } else {
                ArrayNode array = item.putArray("embedding");
                for (float x : v) {
                    array.add(x);
                }
            }
        }
        int tokens = embedded.tokens();
        out.put("model", embedded.model());
        out.putObject("usage").put("prompt_tokens", tokens).put("total_tokens", tokens);
        if (!ignored.isEmpty()) {
            response.getHeaders().put("X-Forge-Ignored-Params", String.join(", ", ignored));
        }
        ForgeServer.sendJson(response, callback, 200, out);
    }

    /**
     * The vectors of a request's inputs, in order.
     *
     * @param model  the model's canonical id
     * @param tokens the inputs' tokens, all together
     */
    record Embedded(String model, List<float[]> vectors, int tokens, long loadNanos) {}

    /**
     * Embeds {@code input} (read as {@link #inputs} reads it, errors naming {@code at}) with the
     * model of {@code entry}: the one embedding core of {@code /v1/embeddings} and Ollama's
     * {@code /api/embed} and {@code /api/embeddings}.
     */
    Embedded embed(ModelEntry entry, JsonNode input, String at) {
        long start = System.nanoTime();
        ServedModel model = catalog.serve(entry);
        long loaded = System.nanoTime() - start;
        List<int[]> inputs = inputs(input, model.vocabulary(), at);
        List<float[]> vectors = model.embedder().embed(inputs);
        return new Embedded(
                entry.id(), vectors, inputs.stream().mapToInt(t -> t.length).sum(), loaded);
    }

    /** A string, an array of strings, an array of token ids, or an array of arrays of token ids. */
    private static List<int[]> inputs(JsonNode node, Vocabulary vocab, String param) {
        String bad = "'" + param
                + "' must be a string, an array of strings, or token ids (an array of integers, or of such arrays)";
        if (node == null || node.isNull()) {
            throw ApiError.badRequest(param, "'" + param + "' is required");
        }
        List<int[]> out = new ArrayList<>();
        if (node.isTextual()) {
            out.add(text(node.asText(), vocab, param));
        } else if (node.isArray() && !node.isEmpty() && node.get(0).isIntegralNumber()) {
            out.add(Requests.tokens(node, vocab, param));
        } else if (node.isArray() && !node.isEmpty()) {
            if (node.size() > MAX_INPUTS) {
                throw ApiError.badRequest(param, "at most " + MAX_INPUTS + " inputs per request");
            }
            for (int i = 0; i < node.size(); i++) {
                JsonNode item = node.get(i);
                String at = param + "[" + i + "]";
                if (item.isTextual()) {
                    out.add(text(item.asText(), vocab, at));
                } else if (item.isArray()) {
                    out.add(Requests.tokens(item, vocab, at));
                } else {
                    throw ApiError.badRequest(at, bad);
                }
            }
        } else {
            throw ApiError.badRequest(param, bad + (node.isArray() ? "; it is empty" : ""));
        }
        return out;
    }

    private static int[] text(String text, Vocabulary vocab, String at) {
        if (text.isEmpty()) {
            throw ApiError.badRequest(at, at + " is empty");
        }
        return vocab.tokenize(text, true, false);
    }
}
