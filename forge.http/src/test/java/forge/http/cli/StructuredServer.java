package forge.http.cli;

import static forge.http.cli.Http.JSON;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.ExecutionConfig;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import forge.lib.gguf.GgufReader;
import forge.lib.gguf.GgufValue;
import forge.lib.gguf.synth.SynthSpec;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A real server with a random-weight model, for the structured-output tests; and an independent
 * JSON Schema validator (networknt) to judge what it writes.
 */
final class StructuredServer implements AutoCloseable {

    private static final SchemaRegistry SCHEMAS = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    final TestServer server;
    final Http http;
    /**
     * {@code logit_bias} that favours the tokens that close strings, objects and arrays. A
     * grammar guarantees only that every prefix is valid; random weights would wander for
     * thousands of tokens inside an unbounded string or array, so the tests tilt them toward
     * finishing (the bias never lets a token through that the grammar forbids).
     */
    final String closingBias;
    /** The model's vocabulary size. */
    final int vocabSize;

    /** Serves a tiny synthetic model of {@code family}, rendered with the chat template {@code template}. */
    StructuredServer(String family, String template) throws Exception {
        Path model = TestServer.model("tiny-" + family, SynthSpec.tiny(family));
        List<String> tokens;
        try (GgufReader reader = GgufReader.open(model)) {
            tokens = ((GgufValue.Array) reader.value("tokenizer.ggml.tokens").orElseThrow()).strings();
        }
        vocabSize = tokens.size();
        closingBias = "{"
                + List.of("\"", "}", "]").stream()
                        .map(t -> "\"" + tokens.indexOf(t) + "\": 6")
                        .collect(Collectors.joining(", "))
                + "}";
        server = TestServer.serve(model, "--alias demo -c 2048 -np 2 -t 1", "--template", template);
        http = server.http();
    }

    HttpResponse<String> post(String body) throws Exception {
        return http.post("/v1/chat/completions", body);
    }

    /** The validator's complaints about {@code json} under {@code schema}, formats asserted; empty when valid. */
    static List<String> violations(JsonNode schema, String json) throws Exception {
        JsonNode instance = JSON.readTree(json);
        List<Error> errors = SCHEMAS.getSchema(schema)
                .validate(
                        instance,
                        ctx -> ctx.setExecutionConfig(ExecutionConfig.builder()
                                .formatAssertionsEnabled(true)
                                .build()));
        return errors.stream().map(Error::toString).toList();
    }

    @Override
    public void close() {
        server.close();
    }
}
