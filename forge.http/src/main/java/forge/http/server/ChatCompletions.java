package forge.http.server;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.template.ChatDelta;
import forge.runtime.catalog.ChatGeneration;
import forge.runtime.catalog.ChatOptions;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.ServedModel;
import forge.runtime.engine.FinishReason;
import forge.runtime.engine.Generation;
import forge.runtime.engine.GenerationEvent;
import forge.runtime.engine.Timings;
import forge.runtime.engine.TokenLogprob;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code POST /v1/chat/completions}, whole or streamed as server-sent events. */
final class ChatCompletions {

    private static final Logger LOG = LoggerFactory.getLogger(ChatCompletions.class);

    private final ModelCatalog catalog;
    private final ForgeMetrics metrics;
    private final long keepAliveMillis;

    ChatCompletions(ModelCatalog catalog, ForgeMetrics metrics, long keepAliveMillis) {
        this.catalog = catalog;
        this.metrics = metrics;
        this.keepAliveMillis = keepAliveMillis;
    }


    void handle(ChatRequest req, Request request, Response response, Callback callback) {
        ModelEntry entry = Requests.entry(catalog, req.model());
        ServedModel model = catalog.serve(entry);
        String id = "chatcmpl-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        // The output's shape becomes a grammar before anything is generated: a bad one is a 400 here.
        StructuredOutput.Applied shaped = req.structured().apply(model.template(), req.prompt(), req.sampling());
        // n choices are n sequences decoded side by side; a fixed seed gives each its own stream.
        List<ChatGeneration> choices = new ArrayList<>(req.n());
        try {
            for (int i = 0; i < req.n(); i++) {
                var sampling = shaped.sampling().seed() >= 0 ? shaped.sampling().toBuilder().seed(shaped.sampling().seed() + i).build() : shaped.sampling();
                choices.add(model.chat(shaped.prompt(), new ChatOptions(req.n() == 1 ? id : id + "-" + i, sampling,
                        req.maxTokens(), req.stops(), req.ignoreEos(), req.logprobs())));
            }
        } catch (RuntimeException e) {
            choices.forEach(c -> c.generation().cancel());
            throw e;
        }
        // A client that goes away cancels its generations; the engine frees the slots at its next step.
        request.addFailureListener(failure -> choices.forEach(c -> c.generation().cancel()));
        if (!req.ignored().isEmpty()) {
            response.getHeaders().put("X-Forge-Ignored-Params", String.join(", ", req.ignored()));
        }
        long created = System.currentTimeMillis() / 1000;
        try {
            if (req.stream()) {
                stream(req, entry.id(), id, created, choices, response, callback);
            } else {
                whole(req.logprobs() >= 0, entry.id(), id, created, choices, new ClientWatch(request, response), response, callback);
            }
        } catch (InterruptedException e) {
            choices.forEach(c -> c.generation().cancel());
            Thread.currentThread().interrupt();
            callback.failed(e);
        } catch (RuntimeException e) {
            choices.forEach(c -> c.generation().cancel());
            throw e;
        }
    }

    /** Collects the whole answer of every choice, then sends one {@code chat.completion}. */
    private void whole(boolean logprobs, String model, String id, long created, List<ChatGeneration> gens, ClientWatch watch,
                       Response response, Callback callback)
            throws InterruptedException {
        ObjectNode body = OpenAiWire.envelope(id, created, model, "chat.completion");
        ArrayNode choices = body.putArray("choices");
        int promptTokens = 0;
        int completionTokens = 0;
        int cachedTokens = 0;
        Timings first = null;
        List<Generation> all = gens.stream().map(ChatGeneration::generation).toList();
        for (int index = 0; index < gens.size(); index++) {
            ChatGeneration g = gens.get(index);
            StringBuilder content = new StringBuilder();
            StringBuilder reasoning = new StringBuilder();
            Map<Integer, ObjectNode> calls = new TreeMap<>();
            List<TokenLogprob> tokens = new ArrayList<>();
            GenerationEvent.Done done = null;
            while (done == null) {
                GenerationEvent event = watch.next(g.generation(), all);
                switch (event) {
                    case GenerationEvent.PromptLogprobs p -> {
                        // Chat never asks to score its prompt.
                    }
                    case GenerationEvent.Text t -> {
                        collect(g.parser().feed(t.text()), content, reasoning, calls);
                        tokens.addAll(t.logprobs());
                    }
                    case GenerationEvent.Failed f -> throw OpenAiWire.failure(f.error());
                    case GenerationEvent.Done d -> done = d;
                }
            }
            metrics.generation(model, done.timings());
            if (done.reason() == FinishReason.CANCELLED) {
                gens.forEach(c -> c.generation().cancel());
                callback.failed(new EofException("client went away"));
                return;
            }
            collect(g.parser().finish(), content, reasoning, calls);
            ObjectNode choice = choices.addObject();
            choice.put("index", index);
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
            if (logprobs) {
                choice.set("logprobs", Logprobs.chat(tokens));
            } else {
                choice.putNull("logprobs");
            }
            choice.put("finish_reason", finishReason(done.reason(), !calls.isEmpty()));
            // OpenAI counts the shared prompt once and every choice's completion.
            promptTokens = done.timings().promptTokens();
            cachedTokens = Math.max(cachedTokens, done.timings().cachedTokens());
            completionTokens += done.timings().completionTokens();
            if (first == null) {
                first = done.timings();
            }
        }
        body.set("usage", OpenAiWire.usage(promptTokens, completionTokens, cachedTokens));
        body.set("timings", OpenAiWire.timings(first));
        ForgeServer.sendJson(response, callback, 200, body);
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

    /**
     * Streams {@code chat.completion.chunk} events for every choice, interleaved as their tokens
     * come, ending with {@code data: [DONE]}.
     */
    private void stream(ChatRequest req, String model, String id, long created, List<ChatGeneration> gens, Response response,
                        Callback callback) throws InterruptedException {
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
        ChoiceEvents events = new ChoiceEvents(gens.stream().map(ChatGeneration::generation).toList());
        boolean[] toolCalls = new boolean[gens.size()];
        // Log-probabilities of text the parser has not released yet go with the choice's next chunk.
        List<List<TokenLogprob>> pending = new ArrayList<>();
        gens.forEach(g -> pending.add(req.logprobs() >= 0 ? new ArrayList<>() : null));
        int completionTokens = 0;
        int promptTokens = 0;
        int cachedTokens = 0;
        try {
            for (int index = 0; index < gens.size(); index++) {
                ObjectNode first = OpenAiWire.chunk(id, created, model);
                ObjectNode opening = first.withArray("choices").addObject().put("index", index);
                opening.putObject("delta").put("role", "assistant").put("content", "");
                opening.putNull("logprobs");
                opening.putNull("finish_reason");
                SseWriter.send(response, first);
            }
            int open = gens.size();
            while (open > 0) {
                ChoiceEvents.Event next = SseWriter.nextOrKeepAlive(events, response, keepAliveMillis);
                int index = next.index();
                ChatGeneration g = gens.get(index);
                switch (next.event()) {
                    case GenerationEvent.PromptLogprobs p -> {
                        // Chat never asks to score its prompt.
                    }
                    case GenerationEvent.Text t -> {
                        if (pending.get(index) != null) {
                            pending.get(index).addAll(t.logprobs());
                        }
                        toolCalls[index] |= sendDeltas(response, id, created, model, index, g.parser().feed(t.text()), pending.get(index));
                    }
                    case GenerationEvent.Failed f -> {
                        // After a 200 the status cannot change: one final error event, then [DONE].
                        gens.forEach(c -> c.generation().cancel());
                        SseWriter.send(response, OpenAiWire.failure(f.error()).toJson());
                        SseWriter.finish(response, callback);
                        return;
                    }
                    case GenerationEvent.Done d -> {
                        metrics.generation(model, d.timings());
                        toolCalls[index] |= sendDeltas(response, id, created, model, index, g.parser().finish(), pending.get(index));
                        if (d.reason() == FinishReason.CANCELLED) {
                            gens.forEach(c -> c.generation().cancel());
                            callback.failed(new EofException("client went away"));
                            return;
                        }
                        ObjectNode last = OpenAiWire.chunk(id, created, model);
                        ObjectNode choice = last.withArray("choices").addObject();
                        choice.put("index", index);
                        choice.putObject("delta");
                        putLogprobs(choice, pending.get(index));
                        choice.put("finish_reason", finishReason(d.reason(), toolCalls[index]));
                        last.set("timings", OpenAiWire.timings(d.timings()));
                        SseWriter.send(response, last);
                        promptTokens = d.timings().promptTokens();
                        cachedTokens = Math.max(cachedTokens, d.timings().cachedTokens());
                        completionTokens += d.timings().completionTokens();
                        open--;
                    }
                }
            }
            if (req.includeUsage()) {
                ObjectNode usage = OpenAiWire.chunk(id, created, model);
                usage.putArray("choices");
                usage.set("usage", OpenAiWire.usage(promptTokens, completionTokens, cachedTokens));
                SseWriter.send(response, usage);
            }
            SseWriter.finish(response, callback);
        } catch (IOException e) {
            // The client went away mid-stream: free the slots at the engine's next step.
            LOG.debug("stream {} ended by the client: {}", id, e.toString());
            gens.forEach(c -> c.generation().cancel());
            callback.failed(e);
        }
    }


    private static boolean sendDeltas(Response response, String id, long created, String model, int index, List<ChatDelta> deltas,
                                      List<TokenLogprob> logprobs) throws IOException {
        boolean toolCalls = false;
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
            SseWriter.send(response, chunk);
        }
        return toolCalls;
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
        SseWriter.write(response, ByteBuffer.wrap(contentChunk(id, created, model, index, text).getBytes(StandardCharsets.UTF_8)));
    }

    /** The SSE event of one content delta, as {@link #send} would write the same chunk's JSON tree. */
    static String contentChunk(String id, long created, String model, int index, String text) {
        StringBuilder sb = new StringBuilder(160 + text.length());
        sb.append("data: {\"id\":");
        quote(sb, id);
        sb.append(",\"object\":\"chat.completion.chunk\",\"created\":").append(created).append(",\"model\":");
        quote(sb, model);
        sb.append(",\"system_fingerprint\":\"forgelm\",\"choices\":[{\"index\":").append(index)
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

    private static String finishReason(FinishReason reason, boolean toolCalls) {
        return toolCalls && reason == FinishReason.STOP ? "tool_calls" : reason.wire();
    }




}
