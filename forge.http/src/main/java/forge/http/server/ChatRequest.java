package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.backend.TokenLogprobs;
import forge.api.sampler.SamplingParams;
import forge.api.template.ChatImage;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.Role;
import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import forge.runtime.engine.Speculation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A validated {@code POST /v1/chat/completions} body. Every invalid parameter is a 400 naming it;
 * every parameter accepted without effect is listed in {@link #ignored()}.
 *
 * @param model        the model id or alias
 * @param prompt       the conversation
 * @param sampling     sampling parameters
 * @param maxTokens    the most tokens to generate; -1 for no limit but the context
 * @param stops        stop strings
 * @param stream       answer with server-sent events
 * @param includeUsage send a usage chunk at the end of a stream
 * @param ignoreEos    generate past end-of-generation tokens
 * @param ignored      parameters accepted without effect, sorted
 * @param n            how many choices to generate, each its own sequence
 * @param logprobs     -1 when {@code logprobs} is off; else how many {@code top_logprobs} per token
 * @param structured   response_format, grammar and tool_choice: the output's required shape
 * @param speculation  n-gram speculative decoding for this request; null for the engine's
 * @param lora         the request's LoRA adapter list ({@link Lora})
 */
record ChatRequest(
        String model,
        ChatPrompt prompt,
        SamplingParams sampling,
        int maxTokens,
        List<String> stops,
        boolean stream,
        boolean includeUsage,
        boolean ignoreEos,
        Set<String> ignored,
        int n,
        int logprobs,
        StructuredOutput structured,
        Speculation speculation,
        Lora lora) {

    /** A chat body; what it holds that was never read is named in {@link #ignored()}. */
    static ChatRequest parse(Fields body) {
        String model = Requests.model(body);
        Images images = body.images();
        List<ChatMessage> messages = messages(body.get("messages"), images);
        List<ToolDefinition> tools = tools(body.get("tools"));
        Map<String, Object> kwargs = Thinking.effort(
                templateKwargs(body), Params.string(body, "reasoning_effort", "", 16), "reasoning_effort");

        GenerationParams gen = GenerationParams.parse(body, -1);
        boolean logprobs = Params.bool(body, "logprobs", false);
        int topLogprobs = Params.integer(body, "top_logprobs", 0, 0, TokenLogprobs.MAX_TOP);
        if (body.hasNonNull("top_logprobs") && !logprobs) {
            throw ApiError.badRequest("top_logprobs", "'top_logprobs' requires 'logprobs': true");
        }

        StructuredOutput structured = StructuredOutput.parse(body, tools);
        ChatPrompt prompt = new ChatPrompt(messages, tools, true, kwargs, images.images());
        return of(model, prompt, gen, body.ignored(), logprobs ? topLogprobs : -1, structured);
    }

    /** The request for {@code prompt} of {@code model}, generated as {@code gen} says; {@code logprobs} as {@link #logprobs()}. */
    static ChatRequest of(
            String model,
            ChatPrompt prompt,
            GenerationParams gen,
            Set<String> ignored,
            int logprobs,
            StructuredOutput structured) {
        return new ChatRequest(
                model,
                prompt,
                gen.sampling(),
                gen.maxTokens(),
                gen.stops(),
                gen.stream(),
                gen.includeUsage(),
                gen.ignoreEos(),
                ignored,
                gen.n(),
                logprobs,
                structured,
                gen.speculation(),
                gen.lora());
    }

    /** The messages of {@code node}, their images each replaced by {@link ChatImage#MARKER} (and dropped). */
    static List<ChatMessage> messages(JsonNode node) {
        return messages(node, new Images());
    }

    /** The messages of {@code node}; their images go to {@code images}, a marker in their place. */
    static List<ChatMessage> messages(JsonNode node, Images images) {
        if (node == null || !node.isArray() || node.isEmpty()) {
            throw ApiError.badRequest("messages", "'messages' is required and must be a non-empty array");
        }
        List<ChatMessage> out = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
            JsonNode m = node.get(i);
            String at = "messages[" + i + "]";
            if (!m.isObject()) {
                throw ApiError.badRequest(at, at + " must be an object");
            }
            JsonNode roleNode = m.get("role");
            if (roleNode == null || !roleNode.isTextual()) {
                throw ApiError.badRequest(at + ".role", at + ".role is required and must be a string");
            }
            Role role;
            try {
                role = Role.fromWire(roleNode.asText());
            } catch (IllegalArgumentException e) {
                throw ApiError.badRequest(at + ".role", at + ": " + e.getMessage());
            }
            String content = content(m.get("content"), at + ".content", images);
            List<ToolCall> calls = toolCalls(m.get("tool_calls"), at + ".tool_calls");
            if (content == null) {
                if (role != Role.ASSISTANT || calls.isEmpty()) {
                    throw ApiError.badRequest(
                            at + ".content", at + ".content is required for a " + role.wire() + " message");
                }
                content = "";
            }
            String toolCallId = text(m, "tool_call_id", at);
            if (role == Role.TOOL && toolCallId.isEmpty()) {
                throw ApiError.badRequest(
                        at + ".tool_call_id",
                        at + ".tool_call_id is required for a tool message:" + " it names the call the result answers");
            }
            // The message as sent, too: a model's own Jinja template gets it as transformers passes it.
            out.add(new ChatMessage(
                    role,
                    content,
                    text(m, "name", at),
                    calls,
                    toolCallId,
                    text(m, "reasoning_content", at),
                    Json.string(withMarkers(m))));
        }
        return out;
    }

    /**
     * A string, or text and image parts joined into one string (each image a marker); null when
     * absent or null.
     */
    private static String content(JsonNode node, String at, Images images) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (node.isTextual()) {
            return node.asText();
        }
        if (node.isArray()) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < node.size(); i++) {
                JsonNode part = node.get(i);
                JsonNode type = part.get("type");
                String pat = at + "[" + i + "]";
                if (part.isObject() && type != null && "image_url".equals(type.asText())) {
                    // {"type":"image_url","image_url":{"url":"data:..."}}; some clients send the URL as a string
                    JsonNode image = part.get("image_url");
                    JsonNode url = image != null && image.isObject() ? image.get("url") : image;
                    String uat = pat + ".image_url" + (image != null && image.isObject() ? ".url" : "");
                    if (url == null || !url.isTextual()) {
                        throw ApiError.badRequest(uat, uat + " is required and must be a string");
                    }
                    sb.append(images.dataUri(url.asText(), uat));
                    continue;
                }
                if (part.isObject() && type != null && "input_audio".equals(type.asText())) {
                    // {"type":"input_audio","input_audio":{"data":base64,"format":"wav"}}
                    sb.append(images.inputAudio(part.get("input_audio"), pat + ".input_audio"));
                    continue;
                }
                if (!part.isObject()
                        || type == null
                        || !"text".equals(type.asText())
                        || !part.path("text").isTextual()) {
                    throw ApiError.badRequest(
                            pat,
                            pat + " must be a text part {\"type\":\"text\",\"text\":...}, an image_url or an"
                                    + " input_audio part"
                                    + (type != null && !"text".equals(type.asText())
                                            ? "; '" + type.asText() + "' parts are not supported"
                                            : ""));
                }
                sb.append(part.get("text").asText());
            }
            return sb.toString();
        }
        throw ApiError.badRequest(at, at + " must be a string or an array of text, image_url and input_audio parts");
    }

    /**
     * The message as sent, with each {@code image_url} part a text part holding the marker: a
     * model's own Jinja template then renders the marker where the image was (as llama-server
     * hands it the message), and the image's bytes stay out of the template.
     */
    private static JsonNode withMarkers(JsonNode message) {
        JsonNode content = message.get("content");
        if (content == null || !content.isArray()) {
            return message;
        }
        ObjectNode copy = message.deepCopy();
        ArrayNode parts = copy.putArray("content");
        for (JsonNode part : content) {
            if ("image_url".equals(part.path("type").asText())
                    || "input_audio".equals(part.path("type").asText())) {
                parts.addObject().put("type", "text").put("text", ChatImage.MARKER);
            } else {
                parts.add(part);
            }
        }
        return copy;
    }

    private static List<ToolCall> toolCalls(JsonNode node, String at) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw ApiError.badRequest(at, at + " must be an array");
        }
        List<ToolCall> calls = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode c = node.get(i);
            JsonNode fn = c.path("function");
            if (!fn.path("name").isTextual()) {
                throw ApiError.badRequest(
                        at + "[" + i + "].function.name", at + "[" + i + "].function.name is required");
            }
            JsonNode args = fn.get("arguments");
            String arguments =
                    args == null || args.isNull() ? "{}" : args.isTextual() ? args.asText() : Json.string(args);
            calls.add(new ToolCall(c.path("id").asText(""), fn.get("name").asText(), arguments));
        }
        return calls;
    }

    static List<ToolDefinition> tools(JsonNode given) {
        return Tools.list(given, "{\"type\": \"function\", \"function\": {...}}", (tool, at, before) -> {
            JsonNode type = tool.get("type");
            if (type != null && !(type.isTextual() && type.asText().equals("function"))) {
                throw ApiError.badRequest(
                        at + ".type",
                        at + ".type must be \"function\", got " + type + ": only function tools are supported");
            }
            JsonNode fn = Params.object(tool, "function", at);
            if (fn == null) {
                throw ApiError.badRequest(at + ".function", at + ".function is required");
            }
            return Tools.function(fn, at + ".function", Tools.OPENAI, before);
        });
    }

    private static String text(JsonNode m, String field, String at) {
        JsonNode v = m.get(field);
        if (v == null || v.isNull()) {
            return "";
        }
        if (!v.isTextual()) {
            throw ApiError.badRequest(at + "." + field, at + "." + field + " must be a string");
        }
        return v.asText();
    }

    /** {@code chat_template_kwargs}: an object of options for the template, or none. */
    static Map<String, Object> templateKwargs(JsonNode body) {
        Map<String, Object> kwargs = new HashMap<>();
        JsonNode kw = body.get("chat_template_kwargs");
        if (kw != null && !kw.isNull()) {
            if (!kw.isObject()) {
                throw ApiError.badRequest("chat_template_kwargs", "'chat_template_kwargs' must be an object");
            }
            // A null option is the same as an absent one (templates test `is defined`); ChatPrompt holds no nulls.
            kw.properties().forEach(e -> {
                if (!e.getValue().isNull()) {
                    kwargs.put(e.getKey(), Json.MAPPER.convertValue(e.getValue(), Object.class));
                }
            });
        }
        return kwargs;
    }
}
