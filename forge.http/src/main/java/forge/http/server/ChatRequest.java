package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import forge.api.backend.TokenLogprobs;
import forge.api.sampler.SamplingParams;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.Role;
import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

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
 */
record ChatRequest(String model, ChatPrompt prompt, SamplingParams sampling, int maxTokens, List<String> stops,
                   boolean stream, boolean includeUsage, boolean ignoreEos, Set<String> ignored, int n, int logprobs,
                   StructuredOutput structured) {

    /** Parameters that have an effect. */
    private static final Set<String> HANDLED = Set.of("model", "messages", "stream", "stream_options", "max_tokens",
            "max_completion_tokens", "temperature", "top_p", "top_k", "min_p", "seed", "stop", "presence_penalty",
            "frequency_penalty", "repeat_penalty", "repeat_last_n", "ignore_eos", "n", "logit_bias", "tools",
            "chat_template_kwargs", "response_format", "grammar", "tool_choice", "parallel_tool_calls", "logprobs",
            "top_logprobs");
    /** Parameters that change nothing when they hold these neutral values. */
    private static final Map<String, String> NEUTRAL = Map.of("cache_prompt", "true");

    /** Each choice takes a slot (or a place in the queue): more than this is refused rather than queued. */
    static final int MAX_CHOICES = 16;

    static ChatRequest parse(JsonNode body) {
        Set<String> ignored = new TreeSet<>();
        body.fieldNames().forEachRemaining(name -> {
            if (!HANDLED.contains(name) && !(NEUTRAL.containsKey(name) && NEUTRAL.get(name).equals(Json.string(body.get(name))))) {
                ignored.add(name);
            }
        });

        String model = Requests.model(body);
        List<ChatMessage> messages = messages(body.get("messages"));
        List<ToolDefinition> tools = tools(body.get("tools"));
        Map<String, Object> kwargs = templateKwargs(body);

        int n = integer(body, "n", 1, 1, MAX_CHOICES);
        int maxTokens = integer(body, "max_completion_tokens", integer(body, "max_tokens", -1, 1, Integer.MAX_VALUE), 1, Integer.MAX_VALUE);
        float temperature = number(body, "temperature", SamplingParams.DEFAULTS.temperature(), 0, 2);
        float topP = number(body, "top_p", SamplingParams.DEFAULTS.topP(), 0, 1);
        if (topP == 0) {
            topP = Float.MIN_VALUE; // OpenAI allows 0: only the top token survives
        }
        int topK = integer(body, "top_k", SamplingParams.DEFAULTS.topK(), 0, Integer.MAX_VALUE);
        float minP = number(body, "min_p", SamplingParams.DEFAULTS.minP(), 0, 1);
        float presence = number(body, "presence_penalty", 0, -2, 2);
        float frequency = number(body, "frequency_penalty", 0, -2, 2);
        float repeat = number(body, "repeat_penalty", 1, 0.01f, 10);
        int repeatLastN = integer(body, "repeat_last_n", 64, -1, Integer.MAX_VALUE);
        long seed = body.has("seed") && !body.get("seed").isNull() ? longValue(body, "seed") : -1;
        Map<Integer, Float> bias = logitBias(body.get("logit_bias"));
        SamplingParams sampling = SamplingParams.builder().temperature(temperature).topK(topK).topP(topP).minP(minP)
                .repeatPenalty(repeat).repeatLastN(repeatLastN).frequencyPenalty(frequency).presencePenalty(presence)
                .seed(seed).logitBias(bias).build();

        boolean logprobs = bool(body, "logprobs", false);
        int topLogprobs = integer(body, "top_logprobs", 0, 0, TokenLogprobs.MAX_TOP);
        if (body.hasNonNull("top_logprobs") && !logprobs) {
            throw ApiError.badRequest("top_logprobs", "'top_logprobs' requires 'logprobs': true");
        }

        boolean stream = bool(body, "stream", false);
        boolean includeUsage = false;
        JsonNode so = body.get("stream_options");
        if (so != null && !so.isNull()) {
            if (!so.isObject()) {
                throw ApiError.badRequest("stream_options", "'stream_options' must be an object");
            }
            includeUsage = bool(so, "include_usage", false);
        }
        return new ChatRequest(model, new ChatPrompt(messages, tools, true, kwargs), sampling, maxTokens,
                stops(body.get("stop")), stream, includeUsage, bool(body, "ignore_eos", false), ignored, n,
                logprobs ? topLogprobs : -1, StructuredOutput.parse(body, tools));
    }

    static List<ChatMessage> messages(JsonNode node) {
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
            String content = content(m.get("content"), at + ".content");
            List<ToolCall> calls = toolCalls(m.get("tool_calls"), at + ".tool_calls");
            if (content == null) {
                if (role != Role.ASSISTANT || calls.isEmpty()) {
                    throw ApiError.badRequest(at + ".content", at + ".content is required for a " + role.wire() + " message");
                }
                content = "";
            }
            out.add(new ChatMessage(role, content, text(m, "name", at), calls, text(m, "tool_call_id", at),
                    text(m, "reasoning_content", at)));
        }
        return out;
    }

    /** A string, or text parts joined into one string; null when absent or null. */
    private static String content(JsonNode node, String at) {
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
                if (!part.isObject() || type == null || !"text".equals(type.asText()) || !part.path("text").isTextual()) {
                    throw ApiError.badRequest(at + "[" + i + "]", at + "[" + i + "] must be a text part {\"type\":\"text\",\"text\":...}"
                            + (type != null && !"text".equals(type.asText()) ? "; '" + type.asText() + "' parts are not supported" : ""));
                }
                sb.append(part.get("text").asText());
            }
            return sb.toString();
        }
        throw ApiError.badRequest(at, at + " must be a string or an array of text parts");
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
                throw ApiError.badRequest(at + "[" + i + "].function.name", at + "[" + i + "].function.name is required");
            }
            JsonNode args = fn.get("arguments");
            String arguments = args == null || args.isNull() ? "{}" : args.isTextual() ? args.asText() : Json.string(args);
            calls.add(new ToolCall(c.path("id").asText(""), fn.get("name").asText(), arguments));
        }
        return calls;
    }

    static List<ToolDefinition> tools(JsonNode node) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw ApiError.badRequest("tools", "'tools' must be an array");
        }
        List<ToolDefinition> tools = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode fn = node.get(i).path("function");
            if (!fn.path("name").isTextual()) {
                throw ApiError.badRequest("tools[" + i + "].function.name", "tools[" + i + "].function.name is required");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> params = fn.has("parameters") && fn.get("parameters").isObject()
                    ? Json.MAPPER.convertValue(fn.get("parameters"), LinkedHashMap.class) : Map.of();
            tools.add(new ToolDefinition(fn.get("name").asText(), fn.path("description").asText(""), params));
        }
        return tools;
    }

    private static List<String> stops(JsonNode node) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (node.isTextual()) {
            return node.asText().isEmpty() ? List.of() : List.of(node.asText());
        }
        if (node.isArray()) {
            List<String> stops = new ArrayList<>();
            for (JsonNode s : node) {
                if (!s.isTextual()) {
                    throw ApiError.badRequest("stop", "'stop' must be a string or an array of strings");
                }
                if (!s.asText().isEmpty()) {
                    stops.add(s.asText());
                }
            }
            return stops;
        }
        throw ApiError.badRequest("stop", "'stop' must be a string or an array of strings");
    }

    private static Map<Integer, Float> logitBias(JsonNode node) {
        if (node == null || node.isNull()) {
            return Map.of();
        }
        if (!node.isObject()) {
            throw ApiError.badRequest("logit_bias", "'logit_bias' must be an object mapping token ids to numbers");
        }
        Map<Integer, Float> bias = new HashMap<>();
        var it = node.fields();
        while (it.hasNext()) {
            var e = it.next();
            int token;
            try {
                token = Integer.parseInt(e.getKey());
            } catch (NumberFormatException ex) {
                throw ApiError.badRequest("logit_bias", "logit_bias key '" + e.getKey() + "' is not a token id");
            }
            if (!e.getValue().isNumber() || e.getValue().asDouble() < -100 || e.getValue().asDouble() > 100) {
                throw ApiError.badRequest("logit_bias", "logit_bias values must be numbers from -100 to 100");
            }
            // OpenAI: -100 bans the token.
            bias.put(token, e.getValue().asDouble() <= -100 ? Float.NEGATIVE_INFINITY : (float) e.getValue().asDouble());
        }
        return bias;
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
            kw.fields().forEachRemaining(e -> {
                if (!e.getValue().isNull()) {
                    kwargs.put(e.getKey(), Json.MAPPER.convertValue(e.getValue(), Object.class));
                }
            });
        }
        return kwargs;
    }

    static int integer(JsonNode body, String name, int fallback, int min, int max) {
        JsonNode v = body.get(name);
        if (v == null || v.isNull()) {
            return fallback;
        }
        if (!v.isIntegralNumber() && !(v.isNumber() && v.asDouble() == Math.rint(v.asDouble()))) {
            throw ApiError.badRequest(name, "'" + name + "' must be an integer");
        }
        long value = v.asLong();
        if (value < min || value > max) {
            throw ApiError.badRequest(name, "'" + name + "' must be between " + min + " and " + max + ", got " + v.asText());
        }
        return (int) value;
    }

    private static long longValue(JsonNode body, String name) {
        JsonNode v = body.get(name);
        if (!v.isIntegralNumber()) {
            throw ApiError.badRequest(name, "'" + name + "' must be an integer");
        }
        return v.asLong();
    }

    private static float number(JsonNode body, String name, float fallback, float min, float max) {
        JsonNode v = body.get(name);
        if (v == null || v.isNull()) {
            return fallback;
        }
        if (!v.isNumber()) {
            throw ApiError.badRequest(name, "'" + name + "' must be a number");
        }
        double value = v.asDouble();
        if (value < min || value > max) {
            throw ApiError.badRequest(name, "'" + name + "' must be between " + min + " and " + max + ", got " + v.asText());
        }
        return (float) value;
    }

    static boolean bool(JsonNode body, String name, boolean fallback) {
        JsonNode v = body.get(name);
        if (v == null || v.isNull()) {
            return fallback;
        }
        if (!v.isBoolean()) {
            throw ApiError.badRequest(name, "'" + name + "' must be true or false");
        }
        return v.asBoolean();
    }
}
