package forge.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.exception.HttpException;
import dev.langchain4j.exception.ModelNotFoundException;
import dev.langchain4j.model.chat.Capability;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ResponseFormat;
import dev.langchain4j.model.chat.request.ResponseFormatType;
import dev.langchain4j.model.chat.request.ToolChoice;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonSchema;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiEmbeddingModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import dev.langchain4j.model.output.FinishReason;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * LangChain4j's OpenAI module ({@code dev.langchain4j:langchain4j-open-ai}) against the jlink
 * image: chat, streaming, tools with {@code tool_choice: required}, {@code json_schema}
 * responses, embeddings and errors. The model is random-weight noise, so the tests check
 * structure, never wording.
 *
 * <p>{@code tool_choice: required} and {@code json_schema} are enforced by a grammar, so even
 * noise comes out as a valid call or a schema-valid object.
 */
class LangChain4jTest {

    private static final String KEY = "lc4j-key";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path work;

    static ImageServer server;

    @BeforeAll
    static void start() throws Exception {
        server = ImageServer.start(work, "--api-key", KEY);
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private static OpenAiChatModel chatModel(String model) {
        return OpenAiChatModel.builder()
                .baseUrl(server.base + "/v1")
                .apiKey(KEY)
                .modelName(model)
                .maxTokens(8)
                .temperature(0.0)
                .maxRetries(0)
                .timeout(Duration.ofSeconds(60))
                .supportedCapabilities(Capability.RESPONSE_FORMAT_JSON_SCHEMA)
                .build();
    }

    /**
     * A model for grammar-constrained answers. Under a grammar a random-weight model's output is
     * valid but may ramble inside a string: a small bias towards the closing tokens lets it finish
     * within the token budget (the grammar still decides what may come next).
     */
    private static OpenAiChatModel structuredModel() throws Exception {
        Map<String, Integer> closers = new java.util.HashMap<>();
        for (String text : List.of("\"", "}", "]")) {
            HttpResponse<String> r = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(server.base + "/tokenize"))
                                    .header("Authorization", "Bearer " + KEY)
                                    .header("Content-Type", "application/json")
                                    .POST(HttpRequest.BodyPublishers.ofString(
                                            JSON.writeValueAsString(Map.of("content", text))))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
            closers.put(JSON.readTree(r.body()).get("tokens").get(0).asText(), 6);
        }
        return OpenAiChatModel.builder()
                .baseUrl(server.base + "/v1")
                .apiKey(KEY)
                .modelName("tiny")
                .maxTokens(300)
                .temperature(1.0)
                .seed(5)
                .logitBias(closers)
                .maxRetries(0)
                .timeout(Duration.ofSeconds(60))
                .supportedCapabilities(Capability.RESPONSE_FORMAT_JSON_SCHEMA)
                .build();
    }

    @Test
    void chat() {
        ChatResponse r = chatModel("tiny")
                .chat(ChatRequest.builder()
                        .messages(SystemMessage.from("Be brief."), UserMessage.from("Hello"))
                        .build());
        assertNotNull(r.aiMessage().text());
        assertNotNull(r.finishReason());
        assertTrue(
                r.tokenUsage().outputTokenCount() > 0 && r.tokenUsage().outputTokenCount() <= 8,
                r.tokenUsage().toString());
        assertTrue(r.tokenUsage().inputTokenCount() > 0);
        assertEquals("tiny", r.metadata().modelName());
        assertTrue(r.metadata().id().startsWith("chatcmpl-"));
    }

    @Test
    void streaming() throws Exception {
        OpenAiStreamingChatModel model = OpenAiStreamingChatModel.builder()
                .baseUrl(server.base + "/v1")
                .apiKey(KEY)
                .modelName("tiny")
                .maxTokens(8)
                .temperature(0.0)
                .timeout(Duration.ofSeconds(60))
                .build();
        List<String> partials = new ArrayList<>();
        CompletableFuture<ChatResponse> done = new CompletableFuture<>();
        model.chat("Hello", new StreamingChatResponseHandler() {
            @Override
            public void onPartialResponse(String partial) {
                partials.add(partial);
            }

            @Override
            public void onCompleteResponse(ChatResponse response) {
                done.complete(response);
            }

            @Override
            public void onError(Throwable error) {
                done.completeExceptionally(error);
            }
        });
        ChatResponse r = done.get(60, TimeUnit.SECONDS);
        assertEquals(String.join("", partials), r.aiMessage().text(), "the partials add up to the answer");
        assertNotNull(r.finishReason());
    }

    @Test
    void toolsWithToolChoiceRequired() throws Exception {
        ToolSpecification weather = ToolSpecification.builder()
                .name("get_weather")
                .description("The weather in a city")
                .parameters(JsonObjectSchema.builder()
                        .addStringProperty("city")
                        .required("city")
                        .build())
                .build();
        ChatResponse r = structuredModel()
                .chat(ChatRequest.builder()
                        .messages(UserMessage.from("Weather in Paris?"))
                        .toolSpecifications(weather)
                        .toolChoice(ToolChoice.REQUIRED)
                        .maxOutputTokens(300)
                        .build());
        assertNotNull(r.aiMessage(), "the tool definitions are accepted and rendered");
        assertNotNull(r.finishReason());

        // A forced call, even from noise, because the grammar makes it one.
        assertTrue(r.aiMessage().hasToolExecutionRequests(), "tool_choice required forces a call: " + r.aiMessage());
        assertEquals(FinishReason.TOOL_EXECUTION, r.finishReason());
        ToolExecutionRequest call = r.aiMessage().toolExecutionRequests().getFirst();
        assertEquals("get_weather", call.name());
        assertTrue(JSON.readTree(call.arguments()).path("city").isTextual(), call.arguments());
    }

    @Test
    void jsonSchemaResponseFormat() throws Exception {
        JsonSchema schema = JsonSchema.builder()
                .name("person")
                .rootElement(JsonObjectSchema.builder()
                        .addStringProperty("name")
                        .addIntegerProperty("age")
                        .required("name", "age")
                        .build())
                .build();
        ChatResponse r = structuredModel()
                .chat(ChatRequest.builder()
                        .messages(UserMessage.from("Describe a person as JSON"))
                        .responseFormat(ResponseFormat.builder()
                                .type(ResponseFormatType.JSON)
                                .jsonSchema(schema)
                                .build())
                        .maxOutputTokens(300)
                        .build());
        assertNotNull(r.aiMessage().text(), "the response_format is accepted");

        // The output matches the schema, even from noise: the grammar allows nothing else.
        JsonNode person = JSON.readTree(r.aiMessage().text());
        assertTrue(person.path("name").isTextual(), person.toString());
        assertTrue(person.path("age").isIntegralNumber(), person.toString());
    }

    @Test
    void embeddings() {
        OpenAiEmbeddingModel model = OpenAiEmbeddingModel.builder()
                .baseUrl(server.base + "/v1")
                .apiKey(KEY)
                .modelName("tiny")
                .maxRetries(0)
                .build();
        List<Embedding> vectors = model.embedAll(List.of(TextSegment.from("one"), TextSegment.from("two words")))
                .content();
        assertEquals(2, vectors.size());
        assertEquals(vectors.get(0).dimension(), vectors.get(1).dimension());
        assertTrue(vectors.get(0).dimension() > 0);
        double norm = 0;
        for (float x : vectors.get(0).vector()) {
            norm += x * x;
        }
        assertEquals(1.0, Math.sqrt(norm), 1e-3, "normalized");
        assertFalse(
                java.util.Arrays.equals(vectors.get(0).vector(), vectors.get(1).vector()));
    }

    @Test
    void anUnknownModelIsA404() {
        ModelNotFoundException e = assertThrows(
                ModelNotFoundException.class, () -> chatModel("no-such-model").chat("Hello"));
        Throwable cause = e;
        while (cause != null && !(cause instanceof HttpException)) {
            cause = cause.getCause();
        }
        assertNotNull(cause, "the HTTP status is kept: " + e);
        assertEquals(404, ((HttpException) cause).statusCode());
        assertTrue(cause.getMessage().contains("no-such-model"), cause.getMessage());
    }

    @Test
    void aWrongKeyIsA401() {
        OpenAiChatModel model = OpenAiChatModel.builder()
                .baseUrl(server.base + "/v1")
                .apiKey("wrong")
                .modelName("tiny")
                .maxRetries(0)
                .build();
        RuntimeException e = assertThrows(RuntimeException.class, () -> model.chat("Hello"));
        Throwable cause = e;
        while (cause != null && !(cause instanceof HttpException)) {
            cause = cause.getCause();
        }
        assertNotNull(cause, "the HTTP status is kept: " + e);
        assertEquals(401, ((HttpException) cause).statusCode());
    }
}
