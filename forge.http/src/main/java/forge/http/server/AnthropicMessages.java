package forge.http.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.template.ChatDelta;
import forge.api.template.ChatTemplate;
import forge.api.template.ToolCall;
import forge.runtime.catalog.PreparedChat;
import forge.runtime.catalog.ServedModel;
import forge.runtime.engine.FinishReason;
import java.io.IOException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Anthropic's Messages API: {@code POST /v1/messages}, whole or streamed, and
 * {@code POST /v1/messages/count_tokens}. A translator at the edge: {@link MessagesRequest} turns
 * the body into the one chat request, {@link ChatRun} runs it as every chat runs, and this class
 * writes what comes back in Anthropic's terms: content blocks ({@code thinking}, {@code text},
 * {@code tool_use}), {@code stop_reason}s, usage with {@code cache_read_input_tokens} from the
 * prefix cache, its stream's named events in its order, and its error shape. The
 * {@code anthropic-version} and {@code anthropic-beta} headers are accepted; nothing here depends on them.
 *
 * <p>A stream is {@code message_start}; per content block {@code content_block_start}, its
 * {@code content_block_delta}s ({@code text_delta}, {@code thinking_delta} then an empty
 * {@code signature_delta}, {@code input_json_delta}) and {@code content_block_stop}, one block
 * open at a time; a {@code ping} after the first block opens and while nothing comes; then
 * {@code message_delta} ({@code stop_reason}, {@code stop_sequence}, usage) and
 * {@code message_stop}. A failure after the stream began is one {@code error} event.
 */
final class AnthropicMessages {

    private final RunContext context;

    AnthropicMessages(RunContext context) {
        this.context = context;
    }

    void handle(Fields body, boolean strict, Request request, Response response, Callback callback) {
        ChatRequest req = MessagesRequest.parse(body, true);
        Strictness.check(strict, req.ignored());
        String id = Ids.next("msg_");
        ChatRun run = ChatRun.start(context, req, id, strict, request, response);
        run.drive(callback, () -> {
            if (req.stream()) {
                stream(run, response, callback);
            } else {
                whole(run, new ClientWatch(request, response), response, callback);
            }
        });
    }

    /**
     * {@code count_tokens}: the prompt the same body would render to, counted; nothing is
     * generated. The body is read as {@code /v1/messages} reads it, sampler stages included.
     */
    ObjectNode countTokens(Fields body, boolean strict) {
        ChatRequest req = MessagesRequest.parse(body, false);
        Strictness.check(strict, req.ignored());
        ServedModel model = context.catalog().serve(Requests.entry(context.catalog(), req.model()));
        ChatTemplate template =
                ModelCapabilities.template(model.template(), req.prompt().tools(), strict);
        StructuredOutput.Applied shaped = req.structured().apply(template, req.prompt(), req.sampling());
        try (PreparedChat prepared = ChatRun.prepare(model, shaped.prompt(), template)) {
            return Json.MAPPER.createObjectNode().put("input_tokens", prepared.tokens().length);
        }
    }

    private void whole(ChatRun run, ClientWatch watch, Response response, Callback callback)
            throws InterruptedException, IOException {
        ChatRun.Answer a = run.collect(watch).getFirst();
        ObjectNode message = envelope(run);
        ArrayNode content = message.putArray("content");
        if (!a.reasoning().isEmpty()) {
            content.addObject()
                    .put("type", "thinking")
                    .put("thinking", a.reasoning())
                    .put("signature", "");
        }
        if (!a.content().isEmpty()) {
            content.addObject().put("type", "text").put("text", a.content());
        }
        for (ToolCall call : a.toolCalls()) {
            content.addObject()
                    .put("type", "tool_use")
                    .put("id", toolUseId(call.id()))
                    .put("name", call.name())
                    .set("input", input(call.arguments()));
        }
        putStop(message, a.finish());
        message.set("usage", usage(run.usage()));
        ForgeServer.sendJson(response, callback, 200, message);
    }

    /** The message's fields before its content: {@code id}, {@code type}, {@code role}, {@code model}. */
    private static ObjectNode envelope(ChatRun run) {
        ObjectNode m = Json.MAPPER.createObjectNode();
        m.put("id", run.id());
        m.put("type", "message");
        m.put("role", "assistant");
        m.put("model", run.model());
        return m;
    }

    /** One open content block of a stream, and what it is. */
    private enum Block {
        NONE,
        TEXT,
        THINKING,
        TOOL_USE
    }

    private void stream(ChatRun run, Response response, Callback callback) throws InterruptedException, IOException {
        SseWriter.start(response);
        ObjectNode start = Json.MAPPER.createObjectNode().put("type", "message_start");
        ObjectNode message = envelope(run);
        message.putArray("content");
        message.putNull("stop_reason");
        message.putNull("stop_sequence");
        // What is cached is known at the end: message_delta's usage has the final counts.
        message.putObject("usage")
                .put("input_tokens", run.promptTokens())
                .put("cache_creation_input_tokens", 0)
                .put("cache_read_input_tokens", 0)
                .put("output_tokens", 0);
        start.set("message", message);
        SseWriter.event(response, "message_start", start);

        Block open = Block.NONE;
        int index = -1;
        int call = -1;
        boolean pinged = false;
        while (true) {
            ChatRun.Event next;
            try {
                next = run.next(() -> ping(response), context.keepAliveMillis());
            } catch (ApiError e) {
                // Past the status line: Anthropic's error event ends the stream.
                SseWriter.event(response, "error", error(e));
                SseWriter.end(response, callback);
                return;
            }
            if (next instanceof ChatRun.Finished f) {
                close(response, open, index);
                ObjectNode delta = Json.MAPPER.createObjectNode().put("type", "message_delta");
                putStop(delta.putObject("delta"), f);
                delta.set("usage", usage(run.usage()));
                SseWriter.event(response, "message_delta", delta);
                SseWriter.event(
                        response, "message_stop", Json.MAPPER.createObjectNode().put("type", "message_stop"));
                SseWriter.end(response, callback);
                return;
            }
            for (ChatDelta d : ((ChatRun.Deltas) next).deltas()) {
                Block wanted = switch (d) {
                    case ChatDelta.Content c -> c.text().isEmpty() ? open : Block.TEXT;
                    case ChatDelta.Reasoning r -> r.text().isEmpty() ? open : Block.THINKING;
                    case ChatDelta.ToolCallDelta t -> Block.TOOL_USE;
                };
                boolean newCall = d instanceof ChatDelta.ToolCallDelta t && t.index() != call;
                if (wanted != open || newCall) {
                    close(response, open, index);
                    index++;
                    ObjectNode blockStart = Json.MAPPER
                            .createObjectNode()
                            .put("type", "content_block_start")
                            .put("index", index);
                    ObjectNode block = blockStart.putObject("content_block");
                    switch (d) {
                        case ChatDelta.Content c -> block.put("type", "text").put("text", "");
                        case ChatDelta.Reasoning r ->
                            block.put("type", "thinking").put("thinking", "").put("signature", "");
                        case ChatDelta.ToolCallDelta t -> {
                            call = t.index();
                            block.put("type", "tool_use")
                                    .put("id", toolUseId(t.id()))
                                    .put("name", t.name())
                                    .putObject("input");
                        }
                    }
                    SseWriter.event(response, "content_block_start", blockStart);
                    open = wanted;
                    if (!pinged) {
                        SseWriter.event(response, "ping", PING);
                        pinged = true;
                    }
                }
                ObjectNode delta = Json.MAPPER
                        .createObjectNode()
                        .put("type", "content_block_delta")
                        .put("index", index);
                switch (d) {
                    case ChatDelta.Content c -> {
                        if (c.text().isEmpty()) {
                            continue;
                        }
                        delta.putObject("delta").put("type", "text_delta").put("text", c.text());
                    }
                    case ChatDelta.Reasoning r -> {
                        if (r.text().isEmpty()) {
                            continue;
                        }
                        delta.putObject("delta").put("type", "thinking_delta").put("thinking", r.text());
                    }
                    case ChatDelta.ToolCallDelta t -> {
                        if (t.arguments().isEmpty()) {
                            continue;
                        }
                        delta.putObject("delta").put("type", "input_json_delta").put("partial_json", t.arguments());
                    }
                }
                SseWriter.event(response, "content_block_delta", delta);
            }
        }
    }

    private static final ObjectNode PING = Json.MAPPER.createObjectNode().put("type", "ping");

    /** Anthropic's keep-alive: a {@code ping} event, which its SDKs skip. */
    private static void ping(Response response) throws IOException {
        SseWriter.event(response, "ping", PING);
    }

    /** Ends the open block; a thinking block gets its (empty: a local model signs nothing) signature first. */
    private static void close(Response response, Block open, int index) throws IOException {
        if (open == Block.NONE) {
            return;
        }
        if (open == Block.THINKING) {
            ObjectNode signature = Json.MAPPER
                    .createObjectNode()
                    .put("type", "content_block_delta")
                    .put("index", index);
            signature.putObject("delta").put("type", "signature_delta").put("signature", "");
            SseWriter.event(response, "content_block_delta", signature);
        }
        SseWriter.event(
                response,
                "content_block_stop",
                Json.MAPPER.createObjectNode().put("type", "content_block_stop").put("index", index));
    }

    /** {@code stop_reason} and {@code stop_sequence} of a finished message. */
    private static void putStop(ObjectNode n, ChatRun.Finished f) {
        String reason;
        if (f.reason() == FinishReason.LENGTH) {
            reason = "max_tokens";
        } else if (f.toolCalls()) {
            reason = "tool_use";
        } else if (!f.stopSequence().isEmpty()) {
            reason = "stop_sequence";
        } else {
            reason = "end_turn";
        }
        n.put("stop_reason", reason);
        if (f.stopSequence().isEmpty()) {
            n.putNull("stop_sequence");
        } else {
            n.put("stop_sequence", f.stopSequence());
        }
    }

    /**
     * Anthropic's usage: {@code input_tokens} are the prompt's tokens that were computed,
     * {@code cache_read_input_tokens} those reused from the prefix cache (their sum is the
     * prompt), {@code output_tokens} the generated ones.
     */
    private static ObjectNode usage(Run.Usage u) {
        ObjectNode n = Json.MAPPER.createObjectNode();
        n.put("input_tokens", u.promptTokens() - u.cachedTokens());
        n.put("cache_creation_input_tokens", 0);
        n.put("cache_read_input_tokens", u.cachedTokens());
        n.put("output_tokens", u.completionTokens());
        return n;
    }

    /** A call's arguments as the {@code input} object; text that is not a JSON object becomes {@code {}}. */
    private static JsonNode input(String arguments) {
        try {
            JsonNode n = Json.MAPPER.readTree(arguments);
            if (n != null && n.isObject()) {
                return n;
            }
        } catch (JsonProcessingException e) {
            // an unconstrained call the model wrote badly: no input rather than a broken message
        }
        return Json.MAPPER.createObjectNode();
    }

    private static String toolUseId(String id) {
        return id.isEmpty() ? Ids.next("toolu_") : id;
    }

    /** Anthropic's error types, by status. */
    static String errorType(int status) {
        return switch (status) {
            case 400, 405, 422 -> "invalid_request_error";
            case 401 -> "authentication_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 413 -> "request_too_large";
            case 429 -> "rate_limit_error";
            case 503, 529 -> "overloaded_error";
            default -> status >= 500 ? "api_error" : "invalid_request_error";
        };
    }

    /** An error in Anthropic's shape, {@code {"type": "error", "error": {"type", "message"}}}. */
    static ObjectNode error(ApiError e) {
        ObjectNode root = Json.MAPPER.createObjectNode().put("type", "error");
        root.putObject("error").put("type", errorType(e.status())).put("message", e.getMessage());
        return root;
    }
}
