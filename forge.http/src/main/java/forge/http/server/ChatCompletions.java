package forge.http.server;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.template.ChatDelta;
import forge.api.template.ToolCall;
import forge.runtime.engine.FinishReason;
import forge.runtime.engine.TokenLogprob;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** {@code POST /v1/chat/completions}, whole or streamed as server-sent events. */
final class ChatCompletions {

    private final RunContext context;

    ChatCompletions(RunContext context) {
        this.context = context;
    }

    void handle(ChatRequest req, boolean strict, Request request, Response response, Callback callback) {
        String id = Ids.next("chatcmpl-");
        ChatRun run = ChatRun.start(context, req, id, strict, request, response);
        long created = System.currentTimeMillis() / 1000;
        run.drive(callback, () -> {
            if (req.stream()) {
                stream(run, created, response, callback);
            } else {
                whole(run, created, new ClientWatch(request, response), response, callback);
            }
        });
    }

    /** Collects the whole answer of every choice, then sends one {@code chat.completion}. */
    private void whole(ChatRun run, long created, ClientWatch watch, Response response, Callback callback)
            throws InterruptedException, IOException {
        List<ChatRun.Answer> answers = run.collect(watch);
        ObjectNode body = OpenAiWire.envelope(run.id(), created, run.model(), "chat.completion");
        ArrayNode choices = body.putArray("choices");
        for (int index = 0; index < answers.size(); index++) {
            ChatRun.Answer a = answers.get(index);
            ObjectNode choice = choices.addObject();
            choice.put("index", index);
            ObjectNode message = choice.putObject("message");
            message.put("role", "assistant");
            if (a.content().isEmpty() && !a.toolCalls().isEmpty()) {
                message.putNull("content");
            } else {
                message.put("content", a.content());
            }
            if (!a.reasoning().isEmpty()) {
                message.put("reasoning_content", a.reasoning());
            }
            if (!a.toolCalls().isEmpty()) {
                ArrayNode array = message.putArray("tool_calls");
                for (ToolCall c : a.toolCalls()) {
                    ObjectNode call = array.addObject();
                    call.put("id", c.id());
                    call.put("type", "function");
                    call.putObject("function").put("name", c.name()).put("arguments", c.arguments());
                }
            }
            if (run.request().logprobs() >= 0) {
                choice.set("logprobs", Logprobs.chat(a.logprobs()));
            } else {
                choice.putNull("logprobs");
            }
            choice.put("finish_reason", finishReason(a.finish()));
        }
        Run.Usage u = run.usage();
        body.set("usage", OpenAiWire.usage(u.promptTokens(), u.completionTokens(), u.cachedTokens()));
        body.set("timings", OpenAiWire.timings(answers.getFirst().finish().timings()));
        ForgeServer.sendJson(response, callback, 200, body);
    }

    /**
     * Streams {@code chat.completion.chunk} events for every choice, interleaved as their tokens
     * come, ending with {@code data: [DONE]}.
     */
    private void stream(ChatRun run, long created, Response response, Callback callback)
            throws InterruptedException, IOException {
        String id = run.id();
        String model = run.model();
        SseWriter.start(response);
        // Log-probabilities of text the parser has not released yet go with the choice's next chunk.
        List<List<TokenLogprob>> pending = new ArrayList<>();
        for (int i = 0; i < run.size(); i++) {
            pending.add(run.request().logprobs() >= 0 ? new ArrayList<>() : null);
        }
        for (int index = 0; index < run.size(); index++) {
            ObjectNode first = OpenAiWire.chunk(id, created, model);
            ObjectNode opening = first.withArray("choices").addObject().put("index", index);
            opening.putObject("delta").put("role", "assistant").put("content", "");
            opening.putNull("logprobs");
            opening.putNull("finish_reason");
            SseWriter.send(response, first);
        }
        int open = run.size();
        while (open > 0) {
            ChatRun.Event next = SseWriter.next(run::next, context.keepAliveMillis(), response, callback);
            if (next == null) {
                return;
            }
            int index = next.index();
            switch (next) {
                case ChatRun.Deltas d -> {
                    if (pending.get(index) != null) {
                        pending.get(index).addAll(d.logprobs());
                    }
                    sendDeltas(response, id, created, model, index, d.deltas(), pending.get(index));
                }
                case ChatRun.Finished f -> {
                    ObjectNode last = OpenAiWire.chunk(id, created, model);
                    ObjectNode choice = last.withArray("choices").addObject();
                    choice.put("index", index);
                    choice.putObject("delta");
                    putLogprobs(choice, pending.get(index));
                    choice.put("finish_reason", finishReason(f));
                    last.set("timings", OpenAiWire.timings(f.timings()));
                    SseWriter.send(response, last);
                    open--;
                }
            }
        }
        if (run.request().includeUsage()) {
            OpenAiWire.sendUsage(response, OpenAiWire.chunk(id, created, model), run.usage());
        }
        SseWriter.finish(response, callback);
    }

    private static void sendDeltas(
            Response response,
            String id,
            long created,
            String model,
            int index,
            List<ChatDelta> deltas,
            List<TokenLogprob> logprobs)
            throws IOException {
        for (ChatDelta delta : deltas) {
            if (delta instanceof ChatDelta.Content c && logprobs == null) {
                // The chunk of nearly every token: written straight to bytes, no JSON tree per token.
                sendContent(response, id, created, model, index, c.text());
                continue;
            }
            ObjectNode chunk = OpenAiWire.chunk(id, created, model);
            ObjectNode choice = chunk.withArray("choices").addObject();
            choice.put("index", index);
            ObjectNode d = choice.putObject("delta");
            putLogprobs(choice, logprobs);
            choice.putNull("finish_reason");
            switch (delta) {
                case ChatDelta.Content c -> d.put("content", c.text());
                case ChatDelta.Reasoning r -> d.put("reasoning_content", r.text());
                case ChatDelta.ToolCallDelta t -> {
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
            SseWriter.send(response, chunk);
        }
    }

    /** The pending log-probabilities (then forgotten), an empty list when there are none yet, or null when not asked. */
    private static void putLogprobs(ObjectNode choice, List<TokenLogprob> pending) {
        if (pending == null) {
            choice.putNull("logprobs");
        } else {
            choice.set("logprobs", Logprobs.chat(pending));
            pending.clear();
        }
    }

    /**
     * One content delta, byte for byte what {@link #chunk} plus a content delta serialize to, built
     * without a JSON tree: on a 2-core machine the per-token JSON work competed with decoding.
     */
    private static void sendContent(Response response, String id, long created, String model, int index, String text)
            throws IOException {
        SseWriter.write(
                response,
                ByteBuffer.wrap(contentChunk(id, created, model, index, text).getBytes(StandardCharsets.UTF_8)));
    }

    /** The SSE event of one content delta, as {@link #send} would write the same chunk's JSON tree. */
    static String contentChunk(String id, long created, String model, int index, String text) {
        StringBuilder sb = new StringBuilder(160 + text.length());
        sb.append("data: {\"id\":");
        quote(sb, id);
        sb.append(",\"object\":\"chat.completion.chunk\",\"created\":")
                .append(created)
                .append(",\"model\":");
        quote(sb, model);
        sb.append(",\"system_fingerprint\":\"forgelm\",\"choices\":[{\"index\":")
                .append(index)
                .append(",\"delta\":{\"content\":");
        quote(sb, text);
        sb.append("},\"logprobs\":null,\"finish_reason\":null}]}\n\n");
        return sb.toString();
    }

    private static void quote(StringBuilder sb, String text) {
        sb.append('"');
        JsonStringEncoder.getInstance().quoteAsString(text, sb);
        sb.append('"');
    }

    private static String finishReason(ChatRun.Finished f) {
        return f.toolCalls() && f.reason() == FinishReason.STOP
                ? "tool_calls"
                : f.reason().wire();
    }
}
