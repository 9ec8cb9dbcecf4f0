package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every schema of the corpus ({@code src/test/resources/schemas}, simple to nested with refs),
 * through {@code response_format: json_schema}, from a random-weight model at temperature 1 with
 * three seeds: each answer must finish on its own and pass an independent JSON Schema validator.
 */
class SchemaCorpusTest {

    private static final long[] SEEDS = {1, 2, 3};

    @AutoClose
    static StructuredServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new StructuredServer("generic", "generic");
    }

    static List<Path> corpus() throws Exception {
        try (Stream<Path> files = Files.list(Path.of("src/test/resources/schemas"))) {
            return files.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
    }

    @Test
    void everySchemaOfTheCorpusYieldsValidJsonAcrossSeeds() throws Exception {
        List<Path> schemas = corpus();
        assertTrue(schemas.size() >= 30, "the corpus has " + schemas.size() + " schemas");
        List<String> failures = new ArrayList<>();
        int tokens = 0;
        long start = System.nanoTime();
        for (Path file : schemas) {
            JsonNode schema = JSON.readTree(Files.readString(file));
            for (long seed : SEEDS) {
                String body = """
                        {"model": "demo", "max_tokens": 400, "temperature": 1, "seed": %d, "logit_bias": %s,
                         "response_format": {"type": "json_schema", "json_schema": {"name": "t", "strict": true, "schema": %s}},
                         "messages": [{"role": "user", "content": "Answer in JSON."}]}
                        """.formatted(seed, server.closingBias, schema);
                HttpResponse<String> r = server.post(body);
                String name = file.getFileName() + " seed " + seed;
                if (r.statusCode() != 200) {
                    failures.add(name + ": HTTP " + r.statusCode() + " " + r.body());
                    continue;
                }
                JsonNode answer = JSON.readTree(r.body());
                JsonNode choice = answer.get("choices").get(0);
                String content = choice.get("message").get("content").asText();
                tokens += answer.get("usage").get("completion_tokens").asInt();
                if (System.getenv("CORPUS_DEBUG") != null) {
                    System.out.println(name + " " + answer.get("timings") + " "
                            + choice.get("message").get("content").asText());
                }
                if (!choice.get("finish_reason").asText().equals("stop")) {
                    failures.add(name + ": did not finish ("
                            + choice.get("finish_reason").asText() + "): " + content);
                    continue;
                }
                try {
                    List<String> v = StructuredServer.violations(schema, content);
                    if (!v.isEmpty()) {
                        failures.add(name + ": " + content + " violates " + v);
                    }
                } catch (Exception e) {
                    failures.add(name + ": not JSON: " + content + " (" + e.getMessage() + ")");
                }
            }
        }
        System.out.printf(
                "schema corpus: %d schemas x %d seeds, %d tokens in %.1f s%n",
                schemas.size(), SEEDS.length, tokens, (System.nanoTime() - start) / 1e9);
        assertEquals(List.of(), failures);
    }
}
