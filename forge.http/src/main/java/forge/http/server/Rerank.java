package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.backend.Vocabulary;
import forge.api.model.ModelMetadata;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.ServedModel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.IntStream;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code POST /v1/rerank} (also {@code /rerank} and {@code /v1/reranking}, llama-server's names):
 * how relevant each of {@code documents} is to {@code query}, by a reranker's classification head,
 * in the shape Jina's and Cohere's APIs share: {@code results} of {@code {index, relevance_score}}
 * (with {@code document: {text}} under {@code return_documents}), most relevant first, at most
 * {@code top_n}, and {@code usage}.
 *
 * <p>Only a model with a rank head reranks: its GGUF file says {@code <arch>.pooling_type} is
 * rank (llama.cpp's {@code LLAMA_POOLING_TYPE_RANK}, as bge-reranker's and Qwen3-Reranker's
 * conversions write it); any other model is refused with a 400. Each pair is one input of the
 * model's {@code Embedder} (its own context, never a chat slot), laid out as llama-server's
 * {@code format_prompt_rerank}: the model's {@code rerank} prompt template with {@code {query}}
 * and {@code {document}} filled in (Qwen3-Reranker's), or else
 * {@code [BOS] query [EOS] [SEP] document [EOS]} as its vocabulary adds them (BERT-style); the
 * score is the head's first output, as llama-server reads it.
 */
final class Rerank {

    /** {@code LLAMA_POOLING_TYPE_RANK} of llama.h's {@code enum llama_pooling_type}. */
    static final long RANK_POOLING = 4;
    /** The prompt template of a reranker, as llama.cpp's {@code llama_model_chat_template(model, "rerank")} reads it. */
    static final String TEMPLATE_KEY = "tokenizer.chat_template.rerank";

    private final ModelCatalog catalog;

    Rerank(ModelCatalog catalog) {
        this.catalog = catalog;
    }

    void handle(Fields body, boolean strict, Response response, Callback callback) {
        String name = Requests.model(body);
        String query = Params.required(body, "query", "");
        List<String> documents = documents(body.get("documents"));
        int topN = Params.integer(body, "top_n", documents.size(), 1, Integer.MAX_VALUE);
        boolean returnDocuments = Params.bool(body, "return_documents", false);
        Set<String> ignored = body.ignored();
        Strictness.check(strict, ignored);

        ModelEntry entry = Requests.entry(catalog, name);
        ModelMetadata metadata = entry.descriptor().metadata();
        if (!ranks(metadata)) {
            throw ApiError.badRequest(
                    "model",
                    "model '" + entry.id() + "' cannot rerank: it has no rank head (its GGUF pooling type is not"
                            + " rank, as a reranker's such as bge-reranker or Qwen3-Reranker is)");
        }
        ServedModel model = catalog.serve(entry);
        Vocabulary vocab = model.vocabulary();
        String template = metadata.string(TEMPLATE_KEY).orElse(null);
        List<int[]> inputs = new ArrayList<>(documents.size());
        int tokens = 0;
        for (String document : documents) {
            int[] input = prompt(vocab, template, query, document);
            if (input.length == 0) {
                throw ApiError.badRequest("query", "the query and a document are both empty");
            }
            inputs.add(input);
            tokens += input.length;
        }
        float[] scores = model.embedder().rank(inputs);

        ObjectNode out = Json.MAPPER.createObjectNode().put("model", entry.id()).put("object", "list");
        out.putObject("usage").put("prompt_tokens", tokens).put("total_tokens", tokens);
        ArrayNode results = out.putArray("results");
        // Most relevant first; a stable sort keeps equal scores in the order the documents came.
        IntStream.range(0, scores.length)
                .boxed()
                .sorted(Comparator.comparingDouble((Integer i) -> scores[i]).reversed())
                .limit(topN)
                .forEach(i -> {
                    ObjectNode r = results.addObject().put("index", i).put("relevance_score", scores[i]);
                    if (returnDocuments) {
                        r.putObject("document").put("text", documents.get(i));
                    }
                });
        if (!ignored.isEmpty()) {
            response.getHeaders().put("X-Forge-Ignored-Params", String.join(", ", ignored));
        }
        ForgeServer.sendJson(response, callback, 200, out);
    }

    /** Whether the model's file says it pools with a rank head. */
    static boolean ranks(ModelMetadata metadata) {
        return metadata.architecture()
                .map(a -> metadata.integer(a + ".pooling_type"))
                .filter(p -> p.isPresent() && p.getAsLong() == RANK_POOLING)
                .isPresent();
    }

    /** One query-document pair's tokens, as llama-server's {@code format_prompt_rerank} lays them out. */
    static int[] prompt(Vocabulary vocab, String template, String query, String document) {
        if (template != null) {
            String text = template.replace("{query}", query).replace("{document}", document);
            return vocab.tokenize(text, false, true);
        }
        int[] q = vocab.tokenize(query, false, false);
        int[] d = vocab.tokenize(document, false, false);
        OptionalInt eos = vocab.eos().isPresent() ? vocab.eos() : vocab.sep();
        IntStream.Builder out = IntStream.builder();
        addIf(out, vocab.addsBos(), vocab.bos());
        IntStream.of(q).forEach(out);
        addIf(out, vocab.addsEos(), eos);
        addIf(out, vocab.addsSep(), vocab.sep());
        IntStream.of(d).forEach(out);
        addIf(out, vocab.addsEos(), eos);
        return out.build().toArray();
    }

    /** Adds {@code token} where the vocabulary {@code adds} it and has one. */
    private static void addIf(IntStream.Builder out, boolean adds, OptionalInt token) {
        if (adds && token.isPresent()) {
            out.add(token.getAsInt());
        }
    }

    /** The documents: strings, or Cohere's {@code {"text": ...}} objects; 1 to {@link Embeddings#MAX_INPUTS}. */
    private static List<String> documents(JsonNode node) {
        String shape = "'documents' must be a non-empty array of strings";
        if (node == null || node.isNull() || !node.isArray() || node.isEmpty()) {
            throw ApiError.badRequest("documents", shape);
        }
        if (node.size() > Embeddings.MAX_INPUTS) {
            throw ApiError.badRequest("documents", "at most " + Embeddings.MAX_INPUTS + " documents per request");
        }
        List<String> out = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
            JsonNode d = node.get(i);
            if (d.isTextual()) {
                out.add(d.asText());
            } else if (d.isObject() && d.path("text").isTextual()) {
                out.add(d.get("text").asText());
            } else {
                throw ApiError.badRequest("documents[" + i + "]", shape + " (or of {\"text\": string} objects)");
            }
        }
        return out;
    }
}
