package forge.http.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import forge.api.template.ChatDelta;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.Role;
import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.ServedModel;
import forge.runtime.engine.FinishReason;
import forge.runtime.engine.GenerationEvent;
import forge.runtime.engine.GenerationRequest;
import forge.runtime.engine.Timings;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Ollama's {@code POST /api/chat} and {@code POST /api/generate}: each body translated into what
 * the run core takes (a {@link ChatRequest} for {@link ChatRun}; for {@code raw} or a
 * {@code suffix}, the prompt's tokens for {@link Run} as {@code /v1/completions} submits them),
 * then the events written in Ollama's wire format: NDJSON lines by default ({@code stream: false}
 * for one object), thinking in {@code thinking}, tool calls whole with their {@code arguments} as
 * an object, and a last line with {@code done_reason} and the durations in nanoseconds.
 *
 * <p>The translation: {@code options} is read where llama-server's fields are read
 * ({@link GenerationParams}: {@code temperature}, {@code top_k}, {@code top_p}, {@code min_p},
 * {@code seed}, {@code stop}, {@code repeat_penalty}, {@code repeat_last_n}, the penalties,
 * {@code typical_p}, {@code mirostat*}), {@code num_predict} is {@code max_tokens} (-1 and -2: up
 * to the context), {@code num_ctx} has no effect (the slot's context is the server's) and, like
 * every option never read, is named in {@code X-Forge-Ignored-Params}. {@code format} ("json" or a
 * JSON Schema) becomes the grammar, {@code think} the template's reasoning switch or effort
 * ({@link Thinking}). Messages become OpenAI's ({@code thinking} as {@code reasoning_content},
 * a tool result's {@code tool_name} as the call it answers) and are read by the chat door's reader.
 */
final class OllamaChat {

    private final RunContext context;

    OllamaChat(RunContext context) {
        this.context = context;
    }

    /** What one generating request reads besides its prompt: sampling, limit, stops, shape, thinking. */
    private record Generation(
            GenerationParams params, int maxTokens, String grammar, Map<String, Object> kwargs, boolean stream) {}

    /** One request on its way: the model it names (and the name it used), when it came, the body and the exchange. */
    private record Call(
            ModelEntry entry,
            String name,
            long start,
            boolean strict,
            Fields body,
            Request request,
            Response response,
            Callback callback) {}

    /** {@code POST /api/chat}. */
    void chat(Fields body, boolean strict, Request request, Response response, Callback callback) {
        long start = System.nanoTime();
        ModelEntry entry = OllamaApi.entry(context.catalog(), body);
        String name = body.get(body.has("model") ? "model" : "name").asText();
        Call call = new Call(entry, name, start, strict, body, request, response, callback);
        JsonNode messages = Params.array(body.get("messages"), "messages");
        List<ToolDefinition> tools = ChatRequest.tools(body.get("tools"));
        Generation gen = generation(body);
        if (messages.isEmpty()) {
            load(call, true);
            return;
        }
        Images images = body.images();
        List<ChatMessage> chat = ChatRequest.messages(openAi(messages, images), images);
        run(call, new ChatPrompt(chat, tools, true, gen.kwargs(), images.images()), gen, tools, true);
    }

    /** {@code POST /api/generate}: a prompt (with a {@code system} turn) through the template, or {@code raw} as written. */
    void generate(Fields body, boolean strict, Request request, Response response, Callback callback) {
        long start = System.nanoTime();
        ModelEntry entry = OllamaApi.entry(context.catalog(), body);
        String name = body.get(body.has("model") ? "model" : "name").asText();
        Call call = new Call(entry, name, start, strict, body, request, response, callback);
        String prompt = orEmpty(Params.string(body, "prompt", "", Integer.MAX_VALUE));
        String suffix = orEmpty(Params.string(body, "suffix", "", Integer.MAX_VALUE));
        String system = orEmpty(Params.string(body, "system", "", Integer.MAX_VALUE));
        boolean raw = Params.bool(body, "raw", false);
        Images images = body.images();
        String markers = images(body.get("images"), "images", images);
        if (!orEmpty(Params.string(body, "template", "", Integer.MAX_VALUE)).isEmpty()) {
            body.unused("template"); // a Go template for Ollama's renderer: the model's own template renders here
        }
        if (!Params.array(body.get("context"), "context").isEmpty()) {
            body.unused(
                    "context"); // the deprecated token context of an earlier answer: the prompt cache reuses it anyway
        }
        Generation gen = generation(body);
        if (prompt.isEmpty() && suffix.isEmpty() && markers.isEmpty()) {
            load(call, false);
            return;
        }
        if (!markers.isEmpty() && (raw || !suffix.isEmpty())) {
            // such a prompt's tokens are submitted as written: no template places the images in it
            throw ApiError.badRequest(
                    "images", "'images' need the model's template: they cannot go with 'raw' or a 'suffix'");
        }
        if (raw || !suffix.isEmpty()) {
            if (!system.isEmpty()) {
                body.unused("system"); // no template renders the turn it would go in
            }
            if (!gen.kwargs().isEmpty()) {
                body.unused("think");
            }
            completion(call, prompt, suffix, gen);
            return;
        }
        List<ChatMessage> messages = new ArrayList<>();
        if (!system.isEmpty()) {
            messages.add(ChatMessage.of(Role.SYSTEM, system));
        }
        messages.add(ChatMessage.of(Role.USER, markers + prompt));
        run(call, new ChatPrompt(messages, List.of(), true, gen.kwargs(), images.images()), gen, List.of(), false);
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }

    /** {@code options}, {@code format}, {@code think} and {@code stream}, as both routes read them. */
    private static Generation generation(Fields body) {
        Fields options = body.nested("options");
        Fields read = options != null ? options : Fields.of(Json.MAPPER.createObjectNode());
        // Fields of the OpenAI routes that are no Ollama options: accepted by the shared reader, but
        // without effect here (one choice, Ollama's own stream and limit), so named as such.
        for (String other : List.of("n", "stream", "stream_options", "max_tokens", "max_completion_tokens")) {
            if (read.has(other)) {
                read.unused(other);
            }
        }
        GenerationParams params;
        int numPredict;
        try {
            params = GenerationParams.parse(read, -1);
            numPredict = Params.integer(read, "num_predict", -1, -2, Integer.MAX_VALUE);
        } catch (ApiError e) {
            throw inOptions(e);
        }
        if (numPredict == 0) {
            throw ApiError.badRequest("options.num_predict", "'options.num_predict' must be positive, -1 or -2");
        }
        if (read.has("num_ctx")) {
            read.unused("num_ctx"); // the slot's context is set when the server starts
        }
        String grammar = "";
        JsonNode format = body.get("format");
        if (format != null
                && !format.isNull()
                && !(format.isTextual() && format.asText().isEmpty())) {
            if (format.isTextual() && format.asText().equals("json")) {
                grammar = StructuredOutput.schemaGrammar(
                        Json.MAPPER.createObjectNode().put("type", "object"), "format");
            } else if (format.isObject()) {
                grammar = StructuredOutput.schemaGrammar(format, "format");
            } else {
                throw ApiError.badRequest("format", "'format' must be \"json\" or a JSON Schema object");
            }
        }
        Map<String, Object> kwargs = new HashMap<>();
        JsonNode think = body.get("think");
        if (think != null && !think.isNull()) {
            if (think.isBoolean()) {
                kwargs = Thinking.switched(kwargs, think.asBoolean(), -1);
            } else if (think.isTextual()) {
                kwargs = Thinking.effort(kwargs, think.asText(), "think");
            } else {
                throw ApiError.badRequest("think", "'think' must be true, false, or an effort: low, medium, high");
            }
        }
        return new Generation(
                params, numPredict < 0 ? -1 : numPredict, grammar, kwargs, Params.bool(body, "stream", true));
    }

    /**
     * A refusal of an option, naming it where the request wrote it ({@code options.temperature}):
     * the shared reader names the fields of the body it is given.
     */
    private static ApiError inOptions(ApiError e) {
        if (e.param() == null) {
            return e;
        }
        String at = "options." + e.param();
        return new ApiError(
                e.status(), e.type(), e.code(), at, e.getMessage().replace("'" + e.param() + "'", "'" + at + "'"));
    }

    /**
     * Ollama's messages as OpenAI's chat messages, for the chat door's reader: {@code thinking}
     * is {@code reasoning_content}, a tool call gets its arguments as they are (an object), a tool
     * result names the call it answers by {@code tool_name}. A message's {@code images} are read
     * by {@code images} in message order, their markers before the message's text (where Ollama
     * puts them).
     */
    private JsonNode openAi(JsonNode messages, Images images) {
        ArrayNode out = Json.MAPPER.createArrayNode();
        // The chat reader reads image parts of an array content after this pass has read every
        // message's images: both in one request would list the images out of marker order.
        String images0 = null;
        String parts0 = null;
        for (int i = 0; i < messages.size(); i++) {
            JsonNode m = messages.get(i);
            String at = "messages[" + i + "]";
            if (!m.isObject()) {
                out.add(m); // refused by the reader, which names it
                continue;
            }
            String markers = images(m.get("images"), at + ".images", images);
            JsonNode content = m.has("content") ? m.get("content") : TextNode.valueOf("");
            if (!markers.isEmpty()) {
                images0 = images0 == null ? at + ".images" : images0;
                if (!content.isTextual()) {
                    throw ApiError.badRequest(
                            at + ".content", "'" + at + ".content' must be a string in a message with 'images'");
                }
                content = TextNode.valueOf(markers + content.asText());
            }
            if (parts0 == null && content.isArray()) {
                for (int j = 0; j < content.size(); j++) {
                    if (!content.get(j).path("type").asText().equals("text")) {
                        parts0 = at + ".content[" + j + "]";
                        break;
                    }
                }
            }
            if (images0 != null && parts0 != null) {
                throw ApiError.badRequest(
                        parts0,
                        "'" + parts0 + "': images go in a message's 'images' (base64), not in its content, when '"
                                + images0 + "' has some");
            }
            ObjectNode o = Json.MAPPER.createObjectNode();
            o.set("role", m.get("role"));
            o.set("content", content);
            if (m.hasNonNull("thinking")) {
                o.set("reasoning_content", m.get("thinking"));
            }
            JsonNode calls = m.get("tool_calls");
            if (calls != null && calls.isArray()) {
                ArrayNode array = o.putArray("tool_calls");
                for (JsonNode c : calls) {
                    ObjectNode call = array.addObject();
                    call.put("id", c.path("id").asText(""));
                    call.put("type", "function");
                    call.set("function", c.path("function"));
                }
            } else if (calls != null) {
                o.set("tool_calls", calls);
            }
            if ("tool".equals(m.path("role").asText())) {
                String tool = m.path("tool_name").asText(m.path("name").asText(""));
                o.put("tool_call_id", m.path("tool_call_id").asText(tool.isEmpty() ? "call" : tool));
                if (!tool.isEmpty()) {
                    o.put("name", tool);
                }
            }
            out.add(o);
        }
        return out;
    }

    /**
     * Ollama's {@code images} (base64 strings) read by the one image reader, as every door's
     * images are; returns their markers, in order, for the text they go before.
     */
    private static String images(JsonNode node, String at, Images images) {
        if (node == null || node.isNull()) {
            return "";
        }
        if (!node.isArray()) {
            throw ApiError.badRequest(at, "'" + at + "' must be an array of base64-encoded images");
        }
        StringBuilder markers = new StringBuilder();
        for (int j = 0; j < node.size(); j++) {
            String iat = at + "[" + j + "]";
            if (!node.get(j).isTextual()) {
                throw ApiError.badRequest(iat, "'" + iat + "' must be a base64-encoded image");
            }
            markers.append(images.base64(node.get(j).asText(), iat));
        }
        return markers.toString();
    }

    /** An empty prompt or conversation: Ollama loads the model and says so. */
    private void load(Call call, boolean chat) {
        Strictness.check(call.strict(), call.body().ignored());
        long before = System.nanoTime();
        context.catalog().serve(call.entry());
        ObjectNode line = envelope(call.name(), chat, "", "", List.of());
        line.put("done", true).put("done_reason", "load");
        line.put("total_duration", System.nanoTime() - call.start()).put("load_duration", System.nanoTime() - before);
        ForgeServer.sendJson(call.response(), call.callback(), 200, line);
    }

    /** A templated prompt on the chat core. */
    private void run(Call call, ChatPrompt prompt, Generation gen, List<ToolDefinition> tools, boolean chat) {
        StructuredOutput structured =
                StructuredOutput.of(gen.grammar(), "format", StructuredOutput.ToolChoice.AUTO, "", true, tools);
        ChatRequest req = new ChatRequest(
                call.entry().id(),
                prompt,
                gen.params().sampling(),
                gen.maxTokens(),
                gen.params().stops(),
                gen.stream(),
                false,
                gen.params().ignoreEos(),
                call.body().ignored(),
                1,
                -1,
                structured,
                null, // the engine's speculation
                Lora.NONE);
        Strictness.check(call.strict(), req.ignored());
        long load = timeToServe(call.entry());
        ChatRun run =
                ChatRun.start(context, req, Ids.next("chatcmpl-"), call.strict(), call.request(), call.response());
        Writer writer = new Writer(call, chat, load);
        run.drive(call.callback(), () -> {
            if (gen.stream()) {
                writer.stream(() -> step(run.next(() -> {}, context.keepAliveMillis())));
            } else {
                ClientWatch watch = new ClientWatch(call.request(), call.response());
                writer.whole(() -> step(run.next(watch)));
            }
        });
    }

    private static Step step(ChatRun.Event e) {
        return switch (e) {
            case ChatRun.Deltas d -> new Out(d.deltas());
            case ChatRun.Finished f -> new End(f.reason(), f.timings());
        };
    }

    /** {@code raw} or with a {@code suffix}: the prompt's tokens as written (filled in the middle), as {@code /v1/completions} runs them. */
    private void completion(Call call, String prompt, String suffix, Generation gen) {
        var ignored = call.body().ignored();
        Strictness.check(call.strict(), ignored);
        long load = timeToServe(call.entry());
        ServedModel model = context.catalog().serve(call.entry());
        int[] tokens = model.vocabulary().tokenize(prompt, true, true);
        if (!suffix.isEmpty()) {
            tokens = Completions.infill(model.vocabulary(), tokens, suffix, "suffix");
        }
        int[] asked = tokens;
        ContextFit fit = ContextFit.of(
                tokens.length, gen.maxTokens(), model.engine().config().slotContext(), call.strict());
        var sampling = gen.grammar().isEmpty()
                ? gen.params().sampling()
                : gen.params().sampling().toBuilder().grammar(gen.grammar()).build();
        Run run = Run.start(
                Ids.next("cmpl-"),
                call.entry().id(),
                context.metrics(),
                1,
                1,
                sampling,
                (sequence, p, own) -> model.engine()
                        .submit(new GenerationRequest(
                                        sequence,
                                        asked,
                                        own,
                                        fit.maxTokens(),
                                        gen.params().stops(),
                                        Set.of(),
                                        gen.params().ignoreEos())
                                .withSpeculation(gen.params().speculation())),
                ignored,
                fit.maxTokens(),
                call.request(),
                call.response());
        Writer writer = new Writer(call, false, load);
        run.drive(call.callback(), () -> {
            if (gen.stream()) {
                writer.stream(
                        () -> step(run.next(() -> {}, context.keepAliveMillis()).event()));
            } else {
                ClientWatch watch = new ClientWatch(call.request(), call.response());
                writer.whole(() -> step(run.next(watch).event()));
            }
        });
    }

    private static Step step(GenerationEvent e) {
        return switch (e) {
            case GenerationEvent.Text t -> new Out(List.of(new ChatDelta.Content(t.text())));
            case GenerationEvent.PromptLogprobs p -> new Out(List.of());
            case GenerationEvent.Done d -> new End(d.reason(), d.timings());
            case GenerationEvent.Failed f -> throw new IllegalStateException("the run core ends a failed run");
        };
    }

    /** How long getting the model took: its load, when this request is the one that waits for it (Ollama's {@code load_duration}). */
    private long timeToServe(ModelEntry entry) {
        long before = System.nanoTime();
        context.catalog().serve(entry);
        return System.nanoTime() - before;
    }

    /** One step of a run, as the writer takes it: output, or the end. */
    private sealed interface Step permits Out, End {}

    private record Out(List<ChatDelta> deltas) implements Step {}

    private record End(FinishReason reason, Timings timings) implements Step {}

    /** The next step of the run, which may fail the ways a run does. */
    private interface Source {
        Step next() throws IOException, InterruptedException;
    }

    /** A chat's {@code message} or a generate's {@code response}, with what a line carries. */
    private static ObjectNode envelope(
            String name, boolean chat, String content, String thinking, List<ToolCall> calls) {
        ObjectNode line = Json.MAPPER.createObjectNode();
        line.put("model", name);
        line.put("created_at", Instant.now().toString());
        if (chat) {
            ObjectNode message = line.putObject("message");
            message.put("role", "assistant");
            message.put("content", content);
            if (!thinking.isEmpty()) {
                message.put("thinking", thinking);
            }
            if (!calls.isEmpty()) {
                ArrayNode array = message.putArray("tool_calls");
                for (ToolCall c : calls) {
                    ObjectNode fn = array.addObject().putObject("function");
                    fn.put("name", c.name());
                    fn.set("arguments", arguments(c.arguments()));
                }
            }
        } else {
            line.put("response", content);
            if (!thinking.isEmpty()) {
                line.put("thinking", thinking);
            }
        }
        return line;
    }

    /** A call's arguments as Ollama gives them, a JSON object; text that is no JSON (a model's own notation) stays text. */
    private static JsonNode arguments(String arguments) {
        try {
            return Json.MAPPER.readTree(arguments.isBlank() ? "{}" : arguments);
        } catch (JsonProcessingException e) {
            return TextNode.valueOf(arguments);
        }
    }

    /** Writes one run's steps in Ollama's format. */
    private final class Writer {
        private final String name;
        private final boolean chat;
        private final long start;
        private final long load;
        private final Response response;
        private final Callback callback;
        private final Map<Integer, ToolCall> calls = new TreeMap<>();

        Writer(Call call, boolean chat, long load) {
            this.name = call.name();
            this.chat = chat;
            this.start = call.start();
            this.load = load;
            this.response = call.response();
            this.callback = call.callback();
        }

        /** NDJSON: a line per piece of output, tool calls whole once the turn ends, then the closing line. */
        void stream(Source source) throws IOException, InterruptedException {
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/x-ndjson");
            response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
            while (true) {
                Step step;
                try {
                    step = source.next();
                } catch (ApiError e) {
                    // Past the status line, Ollama's stream ends with an error line.
                    line(OllamaApi.error(e), true);
                    return;
                }
                switch (step) {
                    case Out o -> {
                        StringBuilder content = new StringBuilder();
                        StringBuilder thinking = new StringBuilder();
                        ChatRun.collect(o.deltas(), content, thinking, calls);
                        if (!content.isEmpty() || !thinking.isEmpty()) {
                            ObjectNode line = envelope(name, chat, content.toString(), thinking.toString(), List.of());
                            line(line.put("done", false), false);
                        }
                    }
                    case End e -> {
                        if (!calls.isEmpty()) {
                            ObjectNode line = envelope(name, chat, "", "", List.copyOf(calls.values()));
                            line(line.put("done", false), false);
                        }
                        line(last(envelope(name, chat, "", "", List.of()), e), true);
                        return;
                    }
                }
            }
        }

        /** One object with the whole answer and the closing line's fields. */
        void whole(Source source) throws IOException, InterruptedException {
            StringBuilder content = new StringBuilder();
            StringBuilder thinking = new StringBuilder();
            while (true) {
                switch (source.next()) {
                    case Out o -> ChatRun.collect(o.deltas(), content, thinking, calls);
                    case End e -> {
                        ObjectNode body = envelope(
                                name, chat, content.toString(), thinking.toString(), List.copyOf(calls.values()));
                        ForgeServer.sendJson(response, callback, 200, last(body, e));
                        return;
                    }
                }
            }
        }

        /** The closing fields: why it ended and the durations, in nanoseconds as Ollama counts them. */
        private ObjectNode last(ObjectNode line, End e) {
            Timings t = e.timings();
            line.put("done", true);
            line.put("done_reason", e.reason() == FinishReason.LENGTH ? "length" : "stop");
            line.put("total_duration", System.nanoTime() - start);
            line.put("load_duration", load);
            line.put("prompt_eval_count", t.promptTokens());
            line.put("prompt_eval_duration", Math.round(t.promptMs() * 1_000_000));
            line.put("eval_count", t.completionTokens());
            line.put("eval_duration", Math.round(t.decodeMs() * 1_000_000));
            return line;
        }

        private void line(JsonNode line, boolean last) throws IOException {
            byte[] json = Json.bytes(line);
            ByteBuffer buffer = ByteBuffer.allocate(json.length + 1)
                    .put(json)
                    .put((byte) '\n')
                    .flip();
            if (last) {
                response.write(true, buffer, callback);
            } else {
                SseWriter.write(response, buffer);
            }
        }
    }
}
