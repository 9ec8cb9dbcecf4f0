package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import forge.api.sampler.SamplingParams;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.Role;
import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An Anthropic Messages body ({@code POST /v1/messages}, {@code /v1/messages/count_tokens})
 * translated into the one internal chat request: {@code system} and the content blocks of each
 * message ({@code text}, {@code tool_use}, {@code tool_result}, {@code thinking}) become the
 * conversation the chat template renders; {@code tools} with their {@code input_schema},
 * {@code tool_choice} and {@code disable_parallel_tool_use} the same tools and forced-call
 * grammar as chat's; {@code thinking} the template's thinking switch and budget. Every invalid
 * field is a 400 naming it, in Anthropic's shape; fields accepted without effect are named in
 * {@code X-Forge-Ignored-Params}.
 */
final class MessagesRequest {

    private MessagesRequest() {}

    /** Anthropic's smallest thinking budget. */
    static final int MIN_THINKING_BUDGET = 1024;
    /**
     * Claude Code's system prompt starts with a billing line whose {@code cch=} stamp changes with
     * every request; left as sent it would make every prompt differ from the last at its first
     * line, and no cached prefix would ever be reused.
     */
    private static final Pattern BILLING_STAMP =
            Pattern.compile("\\A(x-anthropic-billing-header:[^\\n]*?\\bcch=)([^;\\n]*)");

    /** A body of {@code /v1/messages}: {@code max_tokens} is required. */
    static ChatRequest parse(Fields body) {
        return parse(body, true);
    }

    /**
     * Reads a body of either route alike, field for field (a body one accepts, the other does too,
     * {@code --strict} included), {@code metadata} checked though it has no effect.
     *
     * @param generating whether the body asks for generation ({@code /v1/messages}), which
     *                   requires {@code max_tokens}, rather than a count ({@code count_tokens})
     */
    static ChatRequest parse(Fields body, boolean generating) {
        String model = Requests.model(body);
        JsonNode metadata = Params.object(body, "metadata", "");
        if (metadata != null) {
            Params.string(metadata, "user_id", "metadata", Requests.MAX_USER_LENGTH);
        }
        List<ToolDefinition> tools = tools(body.get("tools"));
        List<ChatMessage> messages = new ArrayList<>();
        String system = system(body.get("system"));
        if (!system.isEmpty()) {
            messages.add(new ChatMessage(Role.SYSTEM, system, "", List.of(), "", ""));
        }
        Images images = body.images();
        messages.addAll(messages(body.get("messages"), images));

        if (generating
                && (body.get("max_tokens") == null || body.get("max_tokens").isNull())) {
            throw ApiError.badRequest("max_tokens", "max_tokens: Field required");
        }
        int maxTokens = Params.integer(body, "max_tokens", -1, 1, Integer.MAX_VALUE);
        // Anthropic's ranges: temperature 0 to 1.
        float temperature = Params.number(body, "temperature", SamplingParams.DEFAULTS.temperature(), 0, 1);
        float topP = Params.number(body, "top_p", SamplingParams.DEFAULTS.topP(), 0, 1);
        int topK = Params.integer(body, "top_k", SamplingParams.DEFAULTS.topK(), 0, Integer.MAX_VALUE);
        SamplingParams sampling = SamplingChain.read(
                        body,
                        SamplingParams.builder()
                                .temperature(temperature)
                                .topP(topP == 0 ? Float.MIN_VALUE : topP)
                                .topK(topK))
                .build();
        JsonNode stopNode = body.get("stop_sequences");
        if (stopNode != null && !stopNode.isNull() && !stopNode.isArray()) {
            throw ApiError.badRequest("stop_sequences", "'stop_sequences' must be an array of strings");
        }
        List<String> stops = GenerationParams.stops(stopNode, "stop_sequences");
        boolean stream = Params.bool(body, "stream", false);
        Map<String, Object> kwargs = thinking(body, ChatRequest.templateKwargs(body), maxTokens);
        Lora lora = Lora.read(body); // as llama-server, which reads it from every generating body
        StructuredOutput structured = structured(body, tools);
        GenerationParams gen = GenerationParams.oneChoice(body, sampling, maxTokens, stops, stream, lora);
        ChatPrompt prompt = new ChatPrompt(messages, tools, true, kwargs, images.images());
        return ChatRequest.of(model, prompt, gen, body.ignored(), -1, structured);
    }

    /** {@code system}: a string, or text blocks joined. */
    private static String system(JsonNode node) {
        if (node == null || node.isNull()) {
            return "";
        }
        String text;
        if (node.isTextual()) {
            text = node.asText();
        } else if (node.isArray()) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < node.size(); i++) {
                String at = "system[" + i + "]";
                JsonNode block = node.get(i);
                if (!block.isObject()
                        || !"text".equals(block.path("type").asText())
                        || !block.path("text").isTextual()) {
                    throw ApiError.badRequest(at, at + " must be a text block {\"type\": \"text\", \"text\": ...}");
                }
                sb.append(block.get("text").asText());
            }
            text = sb.toString();
        } else {
            throw ApiError.badRequest("system", "'system' must be a string or an array of text blocks");
        }
        Matcher m = BILLING_STAMP.matcher(text);
        return m.find() ? m.replaceFirst("$1-") : text;
    }

    /**
     * The messages, each of its content blocks in order: text and thinking blocks and
     * {@code tool_use} calls form an assistant message; {@code tool_result} blocks become tool
     * messages (before the user's own text, as Anthropic orders them).
     */
    private static List<ChatMessage> messages(JsonNode node, Images images) {
        if (node == null || !node.isArray() || node.isEmpty()) {
            throw ApiError.badRequest("messages", "'messages' is required and must be a non-empty array");
        }
        List<ChatMessage> out = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            String at = "messages[" + i + "]";
            JsonNode m = node.get(i);
            if (!m.isObject()) {
                throw ApiError.badRequest(at, at + " must be an object");
            }
            String role = m.path("role").asText("");
            if (!role.equals("user") && !role.equals("assistant")) {
                throw ApiError.badRequest(at + ".role", at + ".role must be \"user\" or \"assistant\"");
            }
            boolean assistant = role.equals("assistant");
            JsonNode content = m.get("content");
            if (content != null && content.isTextual()) {
                out.add(new ChatMessage(
                        assistant ? Role.ASSISTANT : Role.USER, content.asText(), "", List.of(), "", ""));
                continue;
            }
            if (content == null || !content.isArray()) {
                throw ApiError.badRequest(
                        at + ".content", at + ".content must be a string or an array of content blocks");
            }
            StringBuilder text = new StringBuilder();
            StringBuilder thinking = new StringBuilder();
            List<ToolCall> calls = new ArrayList<>();
            for (int j = 0; j < content.size(); j++) {
                String bat = at + ".content[" + j + "]";
                JsonNode block = content.get(j);
                if (!block.isObject() || !block.path("type").isTextual()) {
                    throw ApiError.badRequest(bat, bat + " must be a content block with a 'type'");
                }
                String type = block.get("type").asText();
                switch (type) {
                    case "text" -> text.append(Params.required(block, "text", bat));
                    case "thinking" -> {
                        requireRole(assistant, type, bat);
                        thinking.append(Params.required(block, "thinking", bat));
                    }
                    // Encrypted reasoning of Anthropic's own models: nothing a local model can read.
                    case "redacted_thinking" -> requireRole(assistant, type, bat);
                    case "tool_use" -> {
                        requireRole(assistant, type, bat);
                        JsonNode input = block.get("input");
                        if (input != null && !input.isNull() && !input.isObject()) {
                            throw ApiError.badRequest(bat + ".input", bat + ".input must be an object");
                        }
                        calls.add(new ToolCall(
                                Params.required(block, "id", bat),
                                Params.required(block, "name", bat),
                                input == null || input.isNull() ? "{}" : Json.string(input)));
                    }
                    case "tool_result" -> {
                        if (assistant) {
                            throw ApiError.badRequest(bat, bat + ": tool_result blocks belong in user messages");
                        }
                        String result = toolResult(block.get("content"), bat + ".content");
                        if (Params.bool(block, "is_error", bat, false)) {
                            // The template has no error flag: the model reads it in the result itself.
                            result = "Error: " + result;
                        }
                        out.add(ChatMessage.toolResult(Params.required(block, "tool_use_id", bat), result));
                    }
                    case "image" -> text.append(image(block, bat, images));
                    case "document" ->
                        throw ApiError.badRequest(
                                bat, bat + ": document blocks are not supported: this server reads text and images");
                    default ->
                        throw ApiError.badRequest(
                                bat + ".type",
                                bat + ".type '" + type
                                        + "' is not supported; use text, tool_use, tool_result or thinking");
                }
            }
            if (assistant) {
                out.add(ChatMessage.calling(text.toString(), calls, thinking.toString()));
            } else if (!text.isEmpty() || out.isEmpty() || out.getLast().role() != Role.TOOL) {
                out.add(new ChatMessage(Role.USER, text.toString(), "", List.of(), "", ""));
            }
        }
        return out;
    }

    /**
     * An {@code image} block's source: {@code {"type":"base64","media_type":...,"data":...}}, or
     * {@code {"type":"url","url":...}} (a {@code data:} URI; this server fetches no URL). Returns
     * the marker that takes its place in the text.
     */
    private static String image(JsonNode block, String at, Images images) {
        JsonNode source = block.get("source");
        if (source == null || !source.isObject()) {
            throw ApiError.badRequest(at + ".source", at + ".source is required and must be an object");
        }
        String sat = at + ".source";
        String kind = Params.required(source, "type", sat);
        return switch (kind) {
            case "base64" -> {
                String mediaType = Params.required(source, "media_type", sat);
                if (!List.of("image/png", "image/jpeg", "image/gif", "image/bmp")
                        .contains(mediaType)) {
                    throw ApiError.badRequest(
                            sat + ".media_type",
                            sat + ".media_type '" + mediaType
                                    + "' is not supported; use image/png, image/jpeg, image/gif or image/bmp");
                }
                yield images.base64(Params.required(source, "data", sat), sat + ".data");
            }
            case "url" -> images.dataUri(Params.required(source, "url", sat), sat + ".url");
            default ->
                throw ApiError.badRequest(
                        sat + ".type", sat + ".type '" + kind + "' is not supported; use base64 or url");
        };
    }

    private static void requireRole(boolean assistant, String type, String at) {
        if (!assistant) {
            throw ApiError.badRequest(at, at + ": " + type + " blocks belong in assistant messages");
        }
    }

    /** A tool's result: a string, or text blocks joined; images are refused like image blocks. */
    private static String toolResult(JsonNode node, String at) {
        if (node == null || node.isNull()) {
            return "";
        }
        if (node.isTextual()) {
            return node.asText();
        }
        if (!node.isArray()) {
            throw ApiError.badRequest(at, at + " must be a string or an array of text blocks");
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < node.size(); i++) {
            JsonNode block = node.get(i);
            String bat = at + "[" + i + "]";
            String type = block.path("type").asText("");
            if (type.equals("image") || type.equals("document")) {
                throw ApiError.badRequest(
                        bat, bat + ": " + type + " blocks are not supported: this server reads text only");
            }
            if (!type.equals("text")) {
                throw ApiError.badRequest(bat, bat + " must be a text block {\"type\": \"text\", \"text\": ...}");
            }
            sb.append(Params.required(block, "text", bat));
        }
        return sb.toString();
    }

    /** {@code tools}: custom tools ({@code name}, {@code description}, {@code input_schema}); server tools are refused. */
    private static List<ToolDefinition> tools(JsonNode given) {
        return Tools.list(given, "{\"name\", \"description\", \"input_schema\"}", (tool, at, before) -> {
            String type = Params.string(tool, "type", at, 64);
            if (type != null && !type.equals("custom")) {
                throw ApiError.badRequest(
                        at + ".type",
                        at + ".type '" + type
                                + "' is a server tool, which this server does not run; give custom tools with an input_schema");
            }
            if (Params.object(tool, "input_schema", at) == null) {
                throw ApiError.badRequest(at + ".input_schema", at + ".input_schema is required");
            }
            return Tools.function(tool, at, Tools.ANTHROPIC, before);
        });
    }

    /** {@code tool_choice} and {@code output_config.format} (or the beta's {@code output_format}). */
    private static StructuredOutput structured(Fields body, List<ToolDefinition> tools) {
        StructuredOutput.ToolChoice choice = StructuredOutput.ToolChoice.AUTO;
        String function = "";
        boolean parallel = true;
        JsonNode tc = Params.object(body, "tool_choice", "");
        if (tc != null) {
            String type = Params.string(tc, "type", "tool_choice", 16);
            choice = switch (type == null ? "" : type) {
                case "auto" -> StructuredOutput.ToolChoice.AUTO;
                case "any" -> StructuredOutput.ToolChoice.REQUIRED;
                case "tool" -> StructuredOutput.ToolChoice.FUNCTION;
                case "none" -> StructuredOutput.ToolChoice.NONE;
                default ->
                    throw ApiError.badRequest("tool_choice.type", "'tool_choice.type' must be auto, any, tool or none");
            };
            if (choice == StructuredOutput.ToolChoice.FUNCTION) {
                function = Params.string(tc, "name", "tool_choice", 128);
                if (function == null) {
                    throw ApiError.badRequest(
                            "tool_choice.name", "'tool_choice.name' is required for a tool_choice of type tool");
                }
            }
            parallel = !Params.bool(tc, "disable_parallel_tool_use", "tool_choice", false);
        }
        String grammar = "";
        String param = "";
        JsonNode format = null;
        // Its other fields (effort, ...) are named as ignored, by their path.
        Fields config = body.nested("output_config");
        if (config != null) {
            format = Params.object(config, "format", "output_config");
            param = "output_config.format";
        }
        if (format == null) {
            format = Params.object(body, "output_format", "");
            param = "output_format";
        }
        if (format != null) {
            String type = Params.string(format, "type", param, 32);
            if (!"json_schema".equals(type)) {
                throw ApiError.badRequest(param + ".type", "'" + param + ".type' must be json_schema");
            }
            grammar = StructuredOutput.schemaGrammar(format.get("schema"), param + ".schema");
        }
        return StructuredOutput.of(grammar, param, choice, function, parallel, tools);
    }

    /** {@code thinking}: {@code enabled} with a {@code budget_tokens} (below {@code max_tokens}), {@code disabled} or {@code adaptive}. */
    private static Map<String, Object> thinking(JsonNode body, Map<String, Object> kwargs, int maxTokens) {
        JsonNode thinking = Params.object(body, "thinking", "");
        if (thinking == null) {
            return kwargs;
        }
        String type = Params.string(thinking, "type", "thinking", 16);
        return switch (type == null ? "" : type) {
            case "enabled" -> {
                if (thinking.get("budget_tokens") == null) {
                    throw ApiError.badRequest("thinking.budget_tokens", "thinking.budget_tokens: Field required");
                }
                int budget = (int) Params.longInteger(
                        thinking, "budget_tokens", "thinking", -1, MIN_THINKING_BUDGET, Integer.MAX_VALUE);
                if (maxTokens > 0 && budget >= maxTokens) {
                    throw ApiError.badRequest(
                            "thinking.budget_tokens",
                            "'thinking.budget_tokens' (" + budget + ") must be less than max_tokens (" + maxTokens
                                    + ")");
                }
                yield Thinking.switched(kwargs, true, budget);
            }
            case "adaptive" -> Thinking.switched(kwargs, true, -1);
            case "disabled" -> Thinking.switched(kwargs, false, -1);
            default ->
                throw ApiError.badRequest("thinking.type", "'thinking.type' must be enabled, disabled or adaptive");
        };
    }
}
