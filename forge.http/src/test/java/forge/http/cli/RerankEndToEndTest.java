package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.assertParam;
import static forge.http.cli.Http.badRequest;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.lib.gguf.synth.SynthSpec;
import forge.lib.gguf.synth.SyntheticModels;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /v1/rerank} (and {@code /rerank}, {@code /v1/reranking}) on a real server: a tiny
 * Qwen3-Reranker-shaped model (rank head, {@code rerank} prompt template) beside a chat model
 * without a rank head.
 */
class RerankEndToEndTest {

    @TempDir
    static Path dir;

    @AutoClose
    static TestServer server;

    static Http http;

    static final List<String> DOCUMENTS =
            List.of("the weather is sunny", "hello world", "a tool call", "user and assistant");

    @BeforeAll
    static void start() {
        Path reranker = dir.resolve("tiny-rerank.gguf");
        SyntheticModels.reranker(SynthSpec.tiny("qwen").withArchitecture("qwen3"))
                .write(reranker);
        String plain = TestServer.model("tiny-chat", SynthSpec.tiny("qwen")).toString();
        server = TestServer.start("-m", reranker.toString(), "-m", plain, "-c", "512", "-np", "1", "-t", "2");
        http = server.http();
    }

    static ObjectNode body() {
        ObjectNode b = JSON.createObjectNode().put("model", "tiny-rerank").put("query", "what is the weather");
        DOCUMENTS.forEach(b.putArray("documents")::add);
        return b;
    }

    @Test
    void everyDocumentIsScoredMostRelevantFirst() throws Exception {
        JsonNode r = ok(http.post("/v1/rerank", body().toString()));
        assertEquals("list", r.get("object").asText());
        assertEquals("tiny-rerank", r.get("model").asText());
        JsonNode results = r.get("results");
        assertEquals(DOCUMENTS.size(), results.size());
        Set<Integer> indices = new HashSet<>();
        double previous = Double.POSITIVE_INFINITY;
        for (JsonNode result : results) {
            indices.add(result.get("index").asInt());
            double score = result.get("relevance_score").asDouble();
            // Qwen3's head ends in a softmax over yes/no: the score is yes's probability.
            assertTrue(score > 0 && score < 1, r.toString());
            assertTrue(score <= previous, "sorted: " + r);
            previous = score;
            assertFalse(result.has("document"));
        }
        assertEquals(Set.of(0, 1, 2, 3), indices);
        assertTrue(r.get("usage").get("prompt_tokens").asInt() > 4 * 20, "the template's tokens count: " + r);
    }

    @Test
    void aDocumentsScoreDoesNotDependOnItsCompany() throws Exception {
        JsonNode all = ok(http.post("/v1/rerank", body().toString())).get("results");
        ObjectNode alone = body();
        alone.putArray("documents").add(DOCUMENTS.get(2));
        JsonNode one =
                ok(http.post("/v1/rerank", alone.toString())).get("results").get(0);
        for (JsonNode result : all) {
            if (result.get("index").asInt() == 2) {
                assertEquals(
                        result.get("relevance_score").asDouble(),
                        one.get("relevance_score").asDouble(),
                        1e-5);
            }
        }
        assertEquals(0, one.get("index").asInt());
    }

    @Test
    void topNAndReturnDocumentsShapeTheResults() throws Exception {
        JsonNode r = ok(http.post(
                "/v1/rerank",
                body().put("top_n", 2).put("return_documents", true).toString()));
        assertEquals(2, r.get("results").size());
        for (JsonNode result : r.get("results")) {
            assertEquals(
                    DOCUMENTS.get(result.get("index").asInt()),
                    result.get("document").get("text").asText());
        }
    }

    @Test
    void llamaServersNamesAnswerTheSame() throws Exception {
        JsonNode v1 = ok(http.post("/v1/rerank", body().toString())).get("results");
        assertEquals(v1, ok(http.post("/rerank", body().toString())).get("results"));
        assertEquals(v1, ok(http.post("/v1/reranking", body().toString())).get("results"));
    }

    @Test
    void aModelWithoutARankHeadIsRefused() throws Exception {
        HttpResponse<String> r =
                http.post("/v1/rerank", body().put("model", "tiny-chat").toString());
        assertTrue(badRequest(r).get("message").asText().contains("rank head"), r.body());
    }

    @Test
    void badInputIsA400NamingTheField() throws Exception {
        ObjectNode noQuery = body();
        noQuery.remove("query");
        assertParam(http.post("/v1/rerank", noQuery.toString()), "query");
        ObjectNode empty = body();
        empty.putArray("documents");
        assertParam(http.post("/v1/rerank", empty.toString()), "documents");
        ObjectNode bad = body();
        bad.putArray("documents").add(3);
        assertParam(http.post("/v1/rerank", bad.toString()), "documents[0]");
        assertParam(http.post("/v1/rerank", body().put("top_n", 0).toString()), "top_n");
        HttpResponse<String> ignored =
                http.post("/v1/rerank", body().put("rank_fields", "x").toString());
        ok(ignored);
        assertEquals(
                "rank_fields",
                ignored.headers().firstValue("X-Forge-Ignored-Params").orElse(""));
    }

    @Test
    void theModelListSaysWhichModelReranks() throws Exception {
        JsonNode models = ok(http.get("/v1/models")).get("data");
        for (JsonNode m : models) {
            boolean ranks = false;
            for (JsonNode c : m.path("capabilities")) {
                ranks |= c.asText().equals("rerank");
            }
            assertEquals(m.get("id").asText().equals("tiny-rerank"), ranks, m.toString());
        }
    }

    @Test
    void rerankRequestsAreCounted() throws Exception {
        ok(http.post("/v1/rerank", body().toString()));
        assertTrue(http.get("/metrics").body().contains("route=\"/v1/rerank\",status=\"200\""));
    }
}
