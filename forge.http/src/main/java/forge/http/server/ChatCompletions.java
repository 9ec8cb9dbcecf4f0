package forge.http.server;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.ForgeException;
import forge.api.template.ChatDelta;
import forge.runtime.catalog.ChatGeneration;
import forge.runtime.catalog.ChatOptions;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.ServedModel;
import forge.runtime.engine.EngineException;
import forge.runtime.engine.FinishReason;
import forge.runtime.engine.GenerationEvent;
import forge.runtime.engine.Timings;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code POST /v1/chat/completions}, whole or streamed as server-sent events. */
final class ChatCompletions {

    private static final Logger LOG = LoggerFactory.getLogger(ChatCompletions.class);
    private static final ByteBuffer DONE = ByteBuffer.wrap("data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII)).asReadOnlyBuffer();

    /** How often a handler waiting for a whole answer checks that its client is still there. */
    private static final long CLIENT_PROBE_MS = 200;

    private final ModelCatalog catalog;
    private final ForgeMetrics metrics;

    ChatCompletions(ModelCatalog catalog, ForgeMetrics metrics) {
        this.catalog = catalog;
        this.metrics = metrics;
    }

    static ApiError toApiError(EngineException e) {
        return switch (e.code()) {
            case CONTEXT_LENGTH_EXCEEDED -> new ApiError(400, "invalid_request_error", "context_length_exceeded", "messages", e.getMessage());
            case QUEUE_FULL -> new ApiError(503, "server_error", "queue_full", null, e.getMessage() + "; retry later");
            case UNAVAILABLE -> new ApiError(503, "server_error", "unavailable", null, e.getMessage());
        };
    }

    void handle(ChatRequest req, Request request, Response response, Callback callback) {
        ModelEntry entry = catalog.find(req.model()).orElseThrow(() -> ForgeServer.unknownModel(req.model()));
        ServedModel model = catalog.serve(entry);
        String id = "chatcmpl-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        ChatGeneration g = model.chat(req.prompt(), new ChatOptions(id, req.sampling(), req.maxTokens(), req.stops(), req.ignoreEos()));
        // A client that goes away cancels its generation; the engine frees the slot at its next step.
        request.addFailureListener(failure -> g.generation().cancel());
        if (!req.ignored().isEmpty()) {
            response.getHeaders().put("X-Forge-Ignored-Params", String.join(", ", req.ignored()));
        }
        long created = System.currentTimeMillis() / 1000;
        try {
            if (req.stream()) {
                stream(req, entry.id(), id, created, g, response, callback);
            } else {
                whole(entry.id(), id, created, g, new ClientWatch(request, response), response, callback);
            }
        } catch (InterruptedException e) {
            g.generation().cancel();
            Thread.currentThread().interrupt();
            callback.failed(e);
        }
    }

    /** Collects the whole answer, then sends one {@code chat.completion}. */
    private void whole(String model, String id, long created, ChatGeneration g, ClientWatch watch, Response response,
                       Callback callback) throws InterruptedException {
        StringBuilder content = new StringBuilder();
        StringBuilder reasoning = new StringBuilder();
        Map<Integer, ObjectNode> calls = new TreeMap<>();
        while (true) {
            GenerationEvent event = g.generation().next(CLIENT_PROBE_MS, TimeUnit.MILLISECONDS);
            if (event == null) {
                if (watch.gone()) {
                    // The engine frees the slot at its next step; its Done(CANCELLED) ends this loop.
                    g.generation().cancel();
                }
                continue;
            }
            switch (event) {
                case GenerationEvent.Text t -> collect(g.parser().feed(t.text()), content, reasoning, calls);
                case GenerationEvent.Failed f -> throw failure(f.error());
                case GenerationEvent.Done d -> {
                    metrics.generation(model, d.timings());
                    if (d.reason() == FinishReason.CANCELLED) {
                        callback.failed(new EofException("client went away"));
                        return;
                    }
                    collect(g.parser().finish(), content, reasoning, calls);
                    ObjectNode body = envelope(id, created, model, "chat.completion");
                    ObjectNode choice = body.putArray("choices").addObject();
                    choice.put("index", 0);
                    ObjectNode message = choice.putObject("message");
                    message.put("role", "assistant");
                    if (content.isEmpty() && !calls.isEmpty()) {
                        message.putNull("content");
                    } else {
                        message.put("content", content.toString());
                    }
                    if (!reasoning.isEmpty()) {
                        message.put("reasoning_content", reasoning.toString());
                    }
                    if (!calls.isEmpty()) {
                        ArrayNode array = message.putArray("tool_calls");
                        calls.values().forEach(array::add);
                    }
                    choice.put("finish_reason", finishReason(d.reason(), !calls.isEmpty()));
                    body.set("usage", usage(d.timings()));
                    body.set("timings", timings(d.timings()));
                    ForgeServer.sendJson(response, callback, 200, body);
                    return;
                }
            }
        }
    }

    private static void collect(List<ChatDelta> deltas, StringBuilder content, StringBuilder reasoning, Map<Integer, ObjectNode> calls) {
        for (ChatDelta delta : deltas) {
            switch (delta) {
                case ChatDelta.Content c -> content.append(c.text());
                case ChatDelta.Reasoning r -> reasoning.append(r.text());
                case ChatDelta.ToolCallDelta t -> {
                    ObjectNode call = calls.computeIfAbsent(t.index(), i -> {
                        ObjectNode n = Json.MAPPER.createObjectNode();
                        n.put("id", "");
                        n.put("type", "function");
                        n.putObject("function").put("name", "").put("arguments", "");
                        return n;
                    });
                    if (!t.id().isEmpty()) {
                        call.put("id", t.id());
                    }
                    ObjectNode fn = (ObjectNode) call.get("function");
                    if (!t.name().isEmpty()) {
                        fn.put("name", t.name());
                    }
                    fn.put("arguments", fn.get("arguments").asText() + t.arguments());
                }
            }
        }
    }

    /** Streams {@code chat.completion.chunk} events, ending with {@code data: [DONE]}. */
    private void stream(ChatRequest req, String model, String id, long created, ChatGeneration g, Response response,
                        Callback callback) throws InterruptedException {
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
        boolean toolCalls = false;
        try {
            ObjectNode first = chunk(id, created, model);
            ObjectNode opening = first.withArray("choices").addObject().put("index", 0);
            opening.putObject("delta").put("role", "assistant").put("content", "");
            opening.putNull("finish_reason");
            send(response, first);
            while (true) {
                GenerationEvent event = g.generation().next();
                switch (event) {
                    case GenerationEvent.Text t -> toolCalls |= sendDeltas(response, id, created, model, g.parser().feed(t.text()));
                    case GenerationEvent.Failed f -> {
                        // After a 200 the status cannot change: one final error event, then [DONE].
                        send(response, failure(f.error()).toJson());
                        finishStream(response, callback);
                        return;
                    }
                    case GenerationEvent.Done d -> {
                        metrics.generation(model, d.timings());
                        toolCalls |= sendDeltas(response, id, created, model, g.parser().finish());
                        if (d.reason() == FinishReason.CANCELLED) {
                            callback.failed(new EofException("client went away"));
                            return;
                        }
                        ObjectNode last = chunk(id, created, model);
                        ObjectNode choice = last.withArray("choices").addObject();
                        choice.put("index", 0);
                        choice.putObject("delta");
                        choice.put("finish_reason", finishReason(d.reason(), toolCalls));
                        last.set("timings", timings(d.timings()));
                        send(response, last);
                        if (req.includeUsage()) {
                            ObjectNode usage = chunk(id, created, model);
                            usage.putArray("choices");
                            usage.set("usage", usage(d.timings()));
                            send(response, usage);
                        }
                        finishStream(response, callback);
                        return;
                    }
                }
            }
        } catch (IOException e) {
            // The client went away mid-stream: free the slot at the engine's next step.
            LOG.debug("stream {} ended by the client: {}", id, e.toString());
            g.generation().cancel();
            callback.failed(e);
        }
    }

    private static boolean sendDeltas(Response response, String id, long created, String model, List<ChatDelta> deltas)
            throws IOException {
        boolean toolCalls = false;
        for (ChatDelta delta : deltas) {
            ObjectNode chunk = chunk(id, created, model);
            ObjectNode choice = chunk.withArray("choices").addObject();
            choice.put("index", 0);
            ObjectNode d = choice.putObject("delta");
            choice.putNull("finish_reason");
            switch (delta) {
                case ChatDelta.Content c -> d.put("content", c.text());
                case ChatDelta.Reasoning r -> d.put("reasoning_content", r.text());
                case ChatDelta.ToolCallDelta t -> {
                    toolCalls = true;
                    ObjectNode call = d.putArray("tool_calls").addObject();
                    call.put("index", t.index());
                    if (!t.id().isEmpty()) {
                        call.put("id", t.id());
                        call.put("type", "function");
                    }
                    ObjectNode fn = call.putObject("function");
                    if (!t.name().isEmpty()) {
                        fn.put("name", t.name());
                    }
                    fn.put("arguments", t.arguments());
                }
            }
            send(response, chunk);
        }
        return toolCalls;
    }

    private static void send(Response response, ObjectNode event) throws IOException {
        byte[] json = Json.bytes(event);
        ByteBuffer buffer = ByteBuffer.allocate(json.length + 8);
        buffer.put("data: ".getBytes(StandardCharsets.US_ASCII)).put(json).put((byte) '\n').put((byte) '\n').flip();
        try (Blocker.Callback blocker = Blocker.callback()) {
            response.write(false, buffer, blocker);
            blocker.block();
        }
    }

    private static void finishStream(Response response, Callback callback) {
        response.write(true, DONE.duplicate(), callback);
    }

    private static ApiError failure(ForgeException e) {
        if (e instanceof EngineException ee) {
            return toApiError(ee);
        }
        return new ApiError(500, "server_error", "generation_failed", null, "generation failed: " + e.getMessage());
    }

    private static String finishReason(FinishReason reason, boolean toolCalls) {
        return toolCalls && reason == FinishReason.STOP ? "tool_calls" : reason.wire();
    }

    private static ObjectNode envelope(String id, long created, String model, String object) {
        ObjectNode n = Json.MAPPER.createObjectNode();
        n.put("id", id);
        n.put("object", object);
        n.put("created", created);
        n.put("model", model);
        n.put("system_fingerprint", "forgelm");
        return n;
    }

    private static ObjectNode chunk(String id, long created, String model) {
        return envelope(id, created, model, "chat.completion.chunk");
    }

    private static ObjectNode usage(Timings t) {
        ObjectNode u = Json.MAPPER.createObjectNode();
        u.put("prompt_tokens", t.promptTokens());
        u.put("completion_tokens", t.completionTokens());
        u.put("total_tokens", t.promptTokens() + t.completionTokens());
        u.putObject("prompt_tokens_details").put("cached_tokens", t.cachedTokens());
        return u;
    }

    /** Like llama-server's {@code timings}, plus queue time and time to first token. */
    private static ObjectNode timings(Timings t) {
        ObjectNode n = Json.MAPPER.createObjectNode();
        n.put("queue_ms", t.queueMs());
        n.put("cache_n", t.cachedTokens());
        n.put("prompt_n", t.promptTokens() - t.cachedTokens());
        n.put("prompt_ms", t.promptMs());
        n.put("prompt_per_second", t.promptTokensPerSecond());
        n.put("ttft_ms", t.firstTokenMs());
        n.put("predicted_n", t.completionTokens());
        n.put("predicted_ms", t.decodeMs());
        n.put("predicted_per_second", t.decodeTokensPerSecond());
        return n;
    }
}
