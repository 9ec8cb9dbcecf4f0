package forge.http.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.ExecutionConfig;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import forge.runtime.gguf.GgufReader;
import forge.runtime.gguf.GgufValue;
import forge.runtime.synth.SynthSpec;
import forge.runtime.synth.SyntheticModels;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import picocli.CommandLine;

/**
 * A real server on a free port with a random-weight model, for the structured-output tests; and
 * an independent JSON Schema validator (networknt) to judge what it writes.
 */
final class StructuredServer implements AutoCloseable {

    static final ObjectMapper JSON = new ObjectMapper();
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    final ServeCommand.Running server;
    final HttpClient client = HttpClient.newHttpClient();
    final String base;
    /**
     * {@code logit_bias} that favours the tokens that close strings, objects and arrays. A
     * grammar guarantees only that every prefix is valid; random weights would wander for
     * thousands of tokens inside an unbounded string or array, so the tests tilt them toward
     * finishing (the bias never lets a token through that the grammar forbids).
     */
    final String closingBias;

    /** Serves a tiny synthetic model of {@code family}, rendered with the chat template {@code template}. */
    StructuredServer(Path work, String family, String template) throws Exception {
        System.setProperty("forge.user.home", work.resolve("user-home").toString());
        Path model = work.resolve("tiny-" + family + ".gguf");
        SyntheticModels.write(SynthSpec.tiny(family), model);
        List<String> tokens;
        try (GgufReader reader = GgufReader.open(model)) {
            tokens = ((GgufValue.Array) reader.value("tokenizer.ggml.tokens").orElseThrow()).strings();
        }
        closingBias = "{" + List.of("\"", "}", "]").stream().map(t -> "\"" + tokens.indexOf(t) + "\": 6")
                .collect(Collectors.joining(", ")) + "}";
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).parseArgs("-m", model.toString(), "--alias", "demo", "--port", "0", "-c", "2048", "-np", "2",
                "-t", "1", "--template", template, "--plugins-dir", work.resolve("no-plugins").toString());
        server = serve.start();
        base = "http://127.0.0.1:" + server.port();
    }

    HttpResponse<String> post(String body) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(base + "/v1/chat/completions")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The validator's complaints about {@code json} under {@code schema}, formats asserted; empty when valid. */
    static List<String> violations(JsonNode schema, String json) throws Exception {
        JsonNode instance = JSON.readTree(json);
        List<Error> errors = SCHEMAS.getSchema(schema).validate(instance,
                ctx -> ctx.setExecutionConfig(ExecutionConfig.builder().formatAssertionsEnabled(true).build()));
        return errors.stream().map(Error::toString).toList();
    }

    @Override
    public void close() {
        server.close();
    }
}
