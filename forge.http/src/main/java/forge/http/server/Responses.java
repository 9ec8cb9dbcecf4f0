package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.template.ChatDelta;
import forge.api.template.ChatMessage;
import forge.api.template.ToolCall;
import forge.runtime.engine.FinishReason;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * OpenAI's Responses API: {@code POST /v1/responses}, whole or streamed, and
 * {@code GET}/{@code DELETE /v1/responses/{id}}. A translator at the edge: {@link ResponsesRequest}
 * turns the body into the one chat request, {@link ChatRun} runs it as every chat runs, and this
 * class writes the answer as a response object whose {@code output} items are {@code reasoning}
 * ({@code reasoning_text}), {@code message} ({@code output_text}), {@code function_call}
 * (arguments as a JSON string) and, for a {@code custom} tool, {@code custom_tool_call} (its
 * {@code input} string, see {@link CustomTools}), with Responses' usage names; a generation cut by its limit is
 * {@code incomplete} ({@code max_output_tokens}).
 *
 * <p>A stream is {@code response.created}, {@code response.in_progress}; per item
 * {@code response.output_item.added}, for text and reasoning {@code response.content_part.added},
 * its deltas ({@code response.output_text.delta}, {@code response.reasoning_text.delta},
 * {@code response.function_call_arguments.delta}, {@code response.custom_tool_call_input.delta})
 * and their {@code .done}, then
 * {@code response.content_part.done} and {@code response.output_item.done}, one item open at a
 * time; and {@code response.completed}, {@code response.incomplete} or, after a failure,
 * {@code response.failed}. Every event carries its {@code sequence_number}; there is no
 * {@code [DONE]}.
 *
 * <p>With {@code store} (the default) the response is kept in a bounded {@link ResponseStore} for
 * {@code previous_response_id}, which continues its conversation: rendered as before, its prompt
 * shares the previous one's prefix, which the slots' cache reuses.
 */
final class Responses {

    private final RunContext context;
    private final ResponseStore store;

    Responses(RunContext context, ResponseStore store) {
        this.context = context;
        this.store = store;
    }

    void handle(Fields body, boolean strict, Request request, Response response, Callback callback) {
        ResponsesRequest req = ResponsesRequest.parse(body, store);
        Strictness.check(strict, req.chat().ignored());
        String id = Ids.next("resp_");
        ChatRun run = ChatRun.start(context, req.chat(), id, strict, request, response);
        long created = System.currentTimeMillis() / 1000;
        run.drive(callback, () -> {
            if (req.chat().stream()) {
                stream(run, req, created, response, callback);
            } else {
                whole(run, req, created, new ClientWatch(request, response), response, callback);
            }
        });
    }

    /** {@code GET /v1/responses/{id}}: a stored response as it was answered. */
    ObjectNode get(String id) {
        return store.get(id).orElseThrow(() -> notFound(id)).response();
    }

    /** {@code DELETE /v1/responses/{id}}. */
    ObjectNode delete(String id) {
        if (!store.remove(id)) {
            throw notFound(id);
        }
        return Json.MAPPER
                .createObjectNode()
                .put("id", id)
                .put("object", "response.deleted")
                .put("deleted", true);
    }

    private static ApiError notFound(String id) {
        return ApiError.notFound(
                "response_not_found",
                "no response with id '" + id + "' is stored here"
                        + " (created with store: false, deleted, or forgotten)");
    }

    private void whole(
            ChatRun run, ResponsesRequest req, long created, ClientWatch watch, Response response, Callback callback)
            throws InterruptedException, IOException {
        ChatRun.Answer a = run.collect(watch).getFirst();
        ArrayNode output = Json.MAPPER.createArrayNode();
        if (!a.reasoning().isEmpty()) {
            output.add(reasoningItem(Ids.next("rs_"), a.reasoning(), "completed"));
        }
        if (!a.content().isEmpty()) {
            output.add(messageItem(Ids.next("msg_"), a.content(), "completed"));
        }
        for (ToolCall c : a.toolCalls()) {
            output.add(
                    req.custom().contains(c.name())
                            ? CustomTools.item(
                                    Ids.next("ctc_"),
                                    callId(c.id()),
                                    c.name(),
                                    CustomTools.input(c.arguments()),
                                    "completed")
                            : callItem(Ids.next("fc_"), callId(c.id()), c.name(), c.arguments(), "completed"));
        }
        ObjectNode body = finished(run, req, created, output, a.finish());
        ForgeServer.sendJson(response, callback, 200, body);
    }

    /** The final response object, kept when the request says {@code store}. */
    private ObjectNode finished(ChatRun run, ResponsesRequest req, long created, ArrayNode output, ChatRun.Finished f) {
        boolean incomplete = f.reason() == FinishReason.LENGTH;
        ObjectNode body = response(run, req, created, incomplete ? "incomplete" : "completed", output);
        body.put("completed_at", System.currentTimeMillis() / 1000);
        if (incomplete) {
            body.putObject("incomplete_details").put("reason", "max_output_tokens");
        }
        Run.Usage u = run.usage();
        ObjectNode usage = body.putObject("usage");
        usage.put("input_tokens", u.promptTokens());
        usage.putObject("input_tokens_details").put("cached_tokens", u.cachedTokens());
        usage.put("output_tokens", u.completionTokens());
        usage.putObject("output_tokens_details").put("reasoning_tokens", 0);
        usage.put("total_tokens", u.promptTokens() + u.completionTokens());
        if (req.store()) {
            store.put(ResponseStore.entry(body, conversation(req, output)));
        }
        return body;
    }

    /** The conversation a stored response ends: its input, then its output as the assistant's turn. */
    private static List<ChatMessage> conversation(ResponsesRequest req, ArrayNode output) {
        StringBuilder text = new StringBuilder();
        StringBuilder reasoning = new StringBuilder();
        List<ToolCall> calls = new ArrayList<>();
        for (JsonNode item : output) {
            switch (item.get("type").asText()) {
                case "message" ->
                    item.get("content").forEach(p -> text.append(p.path("text").asText("")));
                case "reasoning" ->
                    item.get("content")
                            .forEach(p -> reasoning.append(p.path("text").asText("")));
                case "function_call" ->
                    calls.add(new ToolCall(
                            item.get("call_id").asText(),
                            item.get("name").asText(),
                            item.get("arguments").asText()));
                case "custom_tool_call" ->
                    calls.add(new ToolCall(
                            item.get("call_id").asText(),
                            item.get("name").asText(),
                            CustomTools.arguments(item.get("input").asText())));
                default -> {}
            }
        }
        List<ChatMessage> all = new ArrayList<>(req.conversation());
        all.add(ChatMessage.calling(text.toString(), calls, reasoning.toString()));
        return all;
    }

    /** A response object with {@code status} and {@code output}, the request's settings repeated. */
    private static ObjectNode response(
            ChatRun run, ResponsesRequest req, long created, String status, ArrayNode output) {
        ObjectNode r = Json.MAPPER.createObjectNode();
        r.put("id", run.id());
        r.put("object", "response");
        r.put("created_at", created);
        r.put("status", status);
        r.putNull("error");
        r.putNull("incomplete_details");
        r.put("model", run.model());
        r.set("output", output);
        r.setAll(req.echo());
        r.putNull("usage");
        return r;
    }

    private static ObjectNode messageItem(String id, String text, String status) {
        ObjectNode item = Json.MAPPER.createObjectNode();
        item.put("id", id).put("type", "message").put("status", status).put("role", "assistant");
        ArrayNode content = item.putArray("content");
        if (text != null) {
            content.add(textPart(text));
        }
        return item;
    }

    private static ObjectNode textPart(String text) {
        ObjectNode part =
                Json.MAPPER.createObjectNode().put("type", "output_text").put("text", text);
        part.putArray("annotations");
        part.putArray("logprobs");
        return part;
    }

    private static ObjectNode reasoningItem(String id, String text, String status) {
        ObjectNode item = Json.MAPPER.createObjectNode();
        item.put("id", id).put("type", "reasoning").put("status", status);
        item.putArray("summary");
        ArrayNode content = item.putArray("content");
        if (text != null) {
            content.addObject().put("type", "reasoning_text").put("text", text);
        }
        return item;
    }

    private static ObjectNode callItem(String id, String callId, String name, String arguments, String status) {
        return Json.MAPPER
                .createObjectNode()
                .put("id", id)
                .put("type", "function_call")
                .put("status", status)
                .put("call_id", callId)
                .put("name", name)
                .put("arguments", arguments);
    }

    private static String callId(String id) {
        return id.isEmpty() ? Ids.next("call_") : id;
    }

    /** The events of one streamed response, numbered. */
    private static final class Events {
        private final Response response;
        private int sequence;

        Events(Response response) {
            this.response = response;
        }

        void send(String type, ObjectNode data) throws IOException {
            ObjectNode event = Json.MAPPER.createObjectNode().put("type", type).put("sequence_number", sequence++);
            event.setAll(data);
            SseWriter.event(response, type, event);
        }

        ObjectNode at(int outputIndex, String itemId) {
            return Json.MAPPER.createObjectNode().put("item_id", itemId).put("output_index", outputIndex);
        }
    }

    /** The item being written: its kind, place, id and what it has so far. */
    private static final class Open {
        final String kind;
        final int index;
        final String id;
        final StringBuilder text = new StringBuilder();
        /** Of a custom tool's call: the input sent so far in deltas (text holds its JSON arguments). */
        final StringBuilder input = new StringBuilder();

        final int call;
        final String callId;
        final String name;

        Open(String kind, int index, String id, int call, String callId, String name) {
            this.kind = kind;
            this.index = index;
            this.id = id;
            this.call = call;
            this.callId = callId;
            this.name = name;
        }
    }

    private void stream(ChatRun run, ResponsesRequest req, long created, Response response, Callback callback)
            throws InterruptedException, IOException {
        SseWriter.start(response);
        Events events = new Events(response);
        ArrayNode output = Json.MAPPER.createArrayNode();
        for (String type : new String[] {"response.created", "response.in_progress"}) {
            events.send(
                    type,
                    Json.MAPPER
                            .createObjectNode()
                            .set(
                                    "response",
                                    response(run, req, created, "in_progress", Json.MAPPER.createArrayNode())));
        }
        Open open = null;
        while (true) {
            ChatRun.Event next;
            try {
                next = run.next(() -> SseWriter.keepAlive(response), context.keepAliveMillis());
            } catch (ApiError e) {
                close(events, open, output);
                ObjectNode failed = response(run, req, created, "failed", output);
                failed.putObject("error")
                        .put("code", e.code() == null ? e.type() : e.code())
                        .put("message", e.getMessage());
                events.send("response.failed", Json.MAPPER.createObjectNode().set("response", failed));
                SseWriter.end(response, callback);
                return;
            }
            if (next instanceof ChatRun.Finished f) {
                close(events, open, output);
                ObjectNode body = finished(run, req, created, output, f);
                events.send(
                        body.get("status").asText().equals("incomplete") ? "response.incomplete" : "response.completed",
                        Json.MAPPER.createObjectNode().set("response", body));
                SseWriter.end(response, callback);
                return;
            }
            for (ChatDelta d : ((ChatRun.Deltas) next).deltas()) {
                switch (d) {
                    case ChatDelta.Content c -> open = appendText(events, open, output, "message", c.text());
                    case ChatDelta.Reasoning r -> open = appendText(events, open, output, "reasoning", r.text());
                    case ChatDelta.ToolCallDelta t -> {
                        if (open == null || !open.kind.endsWith("_call") || open.call != t.index()) {
                            close(events, open, output);
                            // A call's first delta names its tool: a custom tool's call is a custom_tool_call item.
                            boolean custom = req.custom().contains(t.name());
                            open = new Open(
                                    custom ? "custom_tool_call" : "function_call",
                                    output.size(),
                                    Ids.next(custom ? "ctc_" : "fc_"),
                                    t.index(),
                                    callId(t.id()),
                                    t.name());
                            ObjectNode item = custom
                                    ? CustomTools.item(open.id, open.callId, open.name, "", "in_progress")
                                    : callItem(open.id, open.callId, open.name, "", "in_progress");
                            added(events, output, open, item);
                        }
                        if (open.kind.equals("custom_tool_call")) {
                            // The input as it decodes out of the JSON arguments written so far.
                            open.text.append(t.arguments());
                            String input = CustomTools.partialInput(open.text.toString());
                            if (input.length() > open.input.length()) {
                                String delta = input.substring(open.input.length());
                                open.input.append(delta);
                                events.send(
                                        "response.custom_tool_call_input.delta",
                                        events.at(open.index, open.id).put("delta", delta));
                            }
                        } else if (!t.arguments().isEmpty()) {
                            open.text.append(t.arguments());
                            events.send(
                                    "response.function_call_arguments.delta",
                                    events.at(open.index, open.id).put("delta", t.arguments()));
                        }
                    }
                }
            }
        }
    }

    /**
     * Streams {@code text} of a {@code kind} ({@code message} or {@code reasoning}) item: into the
     * open item when it is one, else into a new one, opened after the open one is closed (its
     * {@code output_item.added} and its text part's {@code content_part.added}); empty text opens
     * nothing.
     *
     * @return the open item
     */
    private static Open appendText(Events events, Open open, ArrayNode output, String kind, String text)
            throws IOException {
        if (text.isEmpty()) {
            return open;
        }
        boolean message = kind.equals("message");
        if (open == null || !open.kind.equals(kind)) {
            close(events, open, output);
            open = new Open(kind, output.size(), Ids.next(message ? "msg_" : "rs_"), -1, "", "");
            ObjectNode item =
                    message ? messageItem(open.id, null, "in_progress") : reasoningItem(open.id, null, "in_progress");
            added(events, output, open, item);
            ObjectNode part = message
                    ? textPart("")
                    : Json.MAPPER
                            .createObjectNode()
                            .put("type", "reasoning_text")
                            .put("text", "");
            events.send(
                    "response.content_part.added",
                    events.at(open.index, open.id).put("content_index", 0).set("part", part));
        }
        open.text.append(text);
        ObjectNode delta =
                events.at(open.index, open.id).put("content_index", 0).put("delta", text);
        if (message) {
            events.send("response.output_text.delta", delta.set("logprobs", Json.MAPPER.createArrayNode()));
        } else {
            events.send("response.reasoning_text.delta", delta);
        }
        return open;
    }

    /** Adds {@code open}'s {@code item} to {@code output}, and says so: {@code response.output_item.added}. */
    private static void added(Events events, ArrayNode output, Open open, ObjectNode item) throws IOException {
        output.add(item);
        events.send(
                "response.output_item.added",
                Json.MAPPER.createObjectNode().put("output_index", open.index).set("item", item.deepCopy()));
    }

    /** Ends the open item: its {@code .done} events, and its final form in {@code output}. */
    private static void close(Events events, Open open, ArrayNode output) throws IOException {
        if (open == null) {
            return;
        }
        String text = open.text.toString();
        ObjectNode item;
        switch (open.kind) {
            case "message" -> {
                events.send(
                        "response.output_text.done",
                        events.at(open.index, open.id)
                                .put("content_index", 0)
                                .put("text", text)
                                .set("logprobs", Json.MAPPER.createArrayNode()));
                events.send(
                        "response.content_part.done",
                        events.at(open.index, open.id).put("content_index", 0).set("part", textPart(text)));
                item = messageItem(open.id, text, "completed");
            }
            case "reasoning" -> {
                events.send(
                        "response.reasoning_text.done",
                        events.at(open.index, open.id).put("content_index", 0).put("text", text));
                events.send(
                        "response.content_part.done",
                        events.at(open.index, open.id)
                                .put("content_index", 0)
                                .set(
                                        "part",
                                        Json.MAPPER
                                                .createObjectNode()
                                                .put("type", "reasoning_text")
                                                .put("text", text)));
                item = reasoningItem(open.id, text, "completed");
            }
            case "custom_tool_call" -> {
                String input = CustomTools.input(text);
                String sent = open.input.toString();
                if (input.startsWith(sent) && input.length() > sent.length()) {
                    // What the streaming decoder could not read (arguments written otherwise): one last delta.
                    events.send(
                            "response.custom_tool_call_input.delta",
                            events.at(open.index, open.id).put("delta", input.substring(sent.length())));
                }
                events.send(
                        "response.custom_tool_call_input.done",
                        events.at(open.index, open.id).put("input", input));
                item = CustomTools.item(open.id, open.callId, open.name, input, "completed");
            }
            default -> {
                events.send(
                        "response.function_call_arguments.done",
                        events.at(open.index, open.id).put("name", open.name).put("arguments", text));
                item = callItem(open.id, open.callId, open.name, text, "completed");
            }
        }
        output.set(open.index, item);
        events.send(
                "response.output_item.done",
                Json.MAPPER.createObjectNode().put("output_index", open.index).set("item", item));
    }
}
