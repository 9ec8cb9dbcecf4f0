package forge.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.core.http.StreamResponse;
import com.openai.errors.NotFoundException;
import com.openai.errors.UnauthorizedException;
import com.openai.models.FunctionDefinition;
import com.openai.models.FunctionParameters;
import com.openai.models.ResponseFormatJsonSchema;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionFunctionTool;
import com.openai.models.chat.completions.ChatCompletionToolChoiceOption;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionCreateParams;
import com.openai.models.embeddings.CreateEmbeddingResponse;
import com.openai.models.embeddings.EmbeddingCreateParams;
import com.openai.models.models.Model;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official OpenAI Java SDK against the jlink image: its parsers are strict about the wire
 * shapes, so every call that returns at all proves the shape. The server needs an API key.
 */
class OpenAiJavaSdkTest {

    @TempDir
    static Path work;

    static ImageServer server;
    static OpenAIClient client;

    @BeforeAll
    static void start() throws Exception {
        server = ImageServer.start(work, "--api-key", "sdk-key");
        client = OpenAIOkHttpClient.builder()
                .baseUrl(server.base + "/v1")
                .apiKey("sdk-key")
                .maxRetries(0)
                .build();
    }

    @AfterAll
    static void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static ChatCompletionCreateParams.Builder chatParams() {
        return ChatCompletionCreateParams.builder()
                .model("tiny")
                .addSystemMessage("Be brief.")
                .addUserMessage("Hello")
                .maxCompletionTokens(6)
                .temperature(0.0);
    }

    @Test
    void chat() {
        ChatCompletion c = client.chat().completions().create(chatParams().n(2).build());
        assertEquals(2, c.choices().size());
        assertEquals(1, c.choices().get(1).index());
        assertTrue(c.choices().get(0).message().content().isPresent());
        assertTrue(c.usage().orElseThrow().completionTokens() > 0);
    }

    @Test
    void streaming() {
        List<ChatCompletionChunk> chunks = new ArrayList<>();
        try (StreamResponse<ChatCompletionChunk> stream = client.chat()
                .completions()
                .createStreaming(chatParams()
                        .streamOptions(com.openai.models.chat.completions.ChatCompletionStreamOptions.builder()
                                .includeUsage(true)
                                .build())
                        .build())) {
            stream.stream().forEach(chunks::add);
        }
        assertFalse(chunks.isEmpty());
        assertTrue(
                chunks.getFirst().choices().getFirst().delta().role().isPresent(), "the role comes in the first delta");
        assertTrue(chunks.getLast().usage().isPresent(), "a usage chunk ends the stream");
        assertTrue(chunks.stream()
                .anyMatch(c -> !c.choices().isEmpty()
                        && c.choices().getFirst().finishReason().isPresent()));
    }

    @Test
    void completionsAndEmbeddingsAndModels() {
        Completion c = client.completions()
                .create(CompletionCreateParams.builder()
                        .model("tiny")
                        .prompt("Once upon a time")
                        .maxTokens(4)
                        .echo(true)
                        .build());
        assertTrue(c.choices().getFirst().text().startsWith("Once upon a time"));
        CreateEmbeddingResponse e = client.embeddings()
                .create(EmbeddingCreateParams.builder()
                        .model("tiny")
                        .inputOfArrayOfStrings(List.of("a", "b c"))
                        .build());
        assertEquals(2, e.data().size());
        assertFalse(e.data().getFirst().embedding().isEmpty());
        Model m = client.models().retrieve("tiny");
        assertEquals("tiny", m.id());
        assertNotNull(client.models().list().data());
    }

    /**
     * A logit bias towards JSON's closing tokens: under a grammar, random weights give valid output
     * that may ramble inside a string; the bias lets it finish within the budget.
     */
    private static ChatCompletionCreateParams.LogitBias closingBias() throws Exception {
        var bias = ChatCompletionCreateParams.LogitBias.builder();
        var http = java.net.http.HttpClient.newHttpClient();
        var json = new com.fasterxml.jackson.databind.ObjectMapper();
        for (String text : List.of("\"", "}", "]")) {
            var r = http.send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create(server.base + "/tokenize"))
                            .header("Authorization", "Bearer sdk-key")
                            .header("Content-Type", "application/json")
                            .POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                                    json.writeValueAsString(java.util.Map.of("content", text))))
                            .build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
            bias.putAdditionalProperty(
                    json.readTree(r.body()).get("tokens").get(0).asText(), JsonValue.from(6));
        }
        return bias.build();
    }

    /**
     * A sampled request for {@code user}'s message whose output a grammar constrains: up to 300 tokens
     * at temperature 1 with a fixed seed, biased towards closing ({@link #closingBias()}).
     */
    @SuppressWarnings("deprecation") // OpenAI deprecates seed; clients still send it, and the server honours it
    private static ChatCompletionCreateParams.Builder constrained(String user) throws Exception {
        return ChatCompletionCreateParams.builder()
                .model("tiny")
                .addUserMessage(user)
                .maxCompletionTokens(300)
                .temperature(1.0)
                .seed(5)
                .logitBias(closingBias());
    }

    @Test
    void toolChoiceRequiredForcesAValidCall() throws Exception {
        FunctionParameters parameters = FunctionParameters.builder()
                .putAdditionalProperty("type", JsonValue.from("object"))
                .putAdditionalProperty(
                        "properties", JsonValue.from(java.util.Map.of("city", java.util.Map.of("type", "string"))))
                .putAdditionalProperty("required", JsonValue.from(List.of("city")))
                .putAdditionalProperty("additionalProperties", JsonValue.from(false))
                .build();
        ChatCompletion c = client.chat()
                .completions()
                .create(constrained("Weather in Paris?")
                        .addTool(ChatCompletionFunctionTool.builder()
                                .function(FunctionDefinition.builder()
                                        .name("get_weather")
                                        .description("The weather in a city")
                                        .parameters(parameters)
                                        .build())
                                .build())
                        .toolChoice(ChatCompletionToolChoiceOption.Auto.REQUIRED)
                        .build());
        var choice = c.choices().getFirst();
        assertEquals(ChatCompletion.Choice.FinishReason.TOOL_CALLS, choice.finishReason());
        var call = choice.message()
                .toolCalls()
                .orElseThrow()
                .getFirst()
                .asFunction()
                .function();
        assertEquals("get_weather", call.name());
        var arguments = new com.fasterxml.jackson.databind.ObjectMapper().readTree(call.arguments());
        assertTrue(arguments.path("city").isTextual(), call.arguments());
        assertEquals(1, arguments.size(), "additionalProperties false: " + call.arguments());
    }

    @Test
    void jsonSchemaResponsesMatchTheirSchema() throws Exception {
        var schema = ResponseFormatJsonSchema.JsonSchema.Schema.builder()
                .putAdditionalProperty("type", JsonValue.from("object"))
                .putAdditionalProperty(
                        "properties",
                        JsonValue.from(java.util.Map.of(
                                "name",
                                java.util.Map.of("type", "string"),
                                "age",
                                java.util.Map.of("type", "integer"))))
                .putAdditionalProperty("required", JsonValue.from(List.of("name", "age")))
                .putAdditionalProperty("additionalProperties", JsonValue.from(false))
                .build();
        ChatCompletion c = client.chat()
                .completions()
                .create(constrained("A person as JSON")
                        .responseFormat(ResponseFormatJsonSchema.builder()
                                .jsonSchema(ResponseFormatJsonSchema.JsonSchema.builder()
                                        .name("person")
                                        .schema(schema)
                                        .strict(true)
                                        .build())
                                .build())
                        .build());
        assertEquals(
                ChatCompletion.Choice.FinishReason.STOP, c.choices().getFirst().finishReason());
        var person = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(c.choices().getFirst().message().content().orElseThrow());
        assertTrue(person.path("name").isTextual(), person.toString());
        assertTrue(person.path("age").isIntegralNumber(), person.toString());
    }

    @Test
    void errors() {
        assertThrows(
                NotFoundException.class,
                () -> client.chat()
                        .completions()
                        .create(chatParams().model("no-such-model").build()));
        OpenAIClient wrong = OpenAIOkHttpClient.builder()
                .baseUrl(server.base + "/v1")
                .apiKey("wrong")
                .maxRetries(0)
                .build();
        try {
            assertThrows(UnauthorizedException.class, () -> wrong.models().list());
        } finally {
            wrong.close();
        }
    }
}
