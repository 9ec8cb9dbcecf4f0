package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.sampler.SamplingParams;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.Role;
import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An OpenAI Responses body ({@code POST /v1/responses}) translated into the one internal chat
 * request: {@code instructions} and {@code input} (a string, or items: messages with
 * {@code input_text}, {@code function_call}, {@code function_call_output}, {@code custom_tool_call},
 * {@code custom_tool_call_output}, {@code reasoning}, {@code item_reference}) after the conversation
 * of {@code previous_response_id}; function {@code tools}, {@code tool_choice} and
 * {@code parallel_tool_calls} as chat's, freeform {@code custom} tools as {@link CustomTools} offers
 * them, tools of other types (hosted ones: {@code web_search}, {@code file_search}, {@code mcp},
 * ...) dropped and named; {@code text.format} as {@code response_format}; {@code reasoning.effort}
 * as the template's thinking switch.
 *
 * @param chat         the chat request
 * @param conversation the conversation without {@code instructions}: what a stored response keeps
 * @param store        keep the response for {@code previous_response_id} and {@code GET}
 * @param previous     the {@code previous_response_id}, or empty
 * @param echo         the request's settings as the response object repeats them
 * @param custom       the names of the request's {@code custom} tools, whose calls are {@code custom_tool_call} items
 */
record ResponsesRequest(
        ChatRequest chat,
        List<ChatMessage> conversation,
        boolean store,
        String previous,
        ObjectNode echo,
        Set<String> custom) {

    /** OpenAI's bounds on {@code metadata}: 16 pairs, keys of 64 characters, values of 512. */
    private static final int MAX_METADATA = 16;

    /** A Responses body, {@code previous_response_id} and {@code item_reference}s looked up in {@code store}. */
    static ResponsesRequest parse(Fields body, ResponseStore store) {
        String model = Requests.model(body);
        ObjectNode echo = Json.MAPPER.createObjectNode();

        String previous = Params.string(body, "previous_response_id", "", Requests.MAX_MODEL_LENGTH);
        List<ChatMessage> conversation = new ArrayList<>();
        if (previous != null) {
            String id = previous;
            conversation.addAll(store.get(id)
                    .orElseThrow(() -> new ApiError(
                            400,
                            "invalid_request_error",
                            "previous_response_not_found",
                            "previous_response_id",
                            "Previous response with id '" + id
                                    + "' not found: it was never stored here, was deleted, or was forgotten (the store keeps "
                                    + ResponseStore.DEFAULT_COUNT + " responses for a day)"))
                    .conversation());
        }
        Images images = body.images();
        conversation.addAll(input(body.get("input"), store, images));
        String instructions = Params.string(body, "instructions", "", Integer.MAX_VALUE);
        List<ChatMessage> messages = new ArrayList<>();
        if (instructions != null && !instructions.isEmpty()) {
            messages.add(ChatMessage.of(Role.SYSTEM, instructions));
        }
        messages.addAll(conversation);

        Map<String, CustomTools.Format> formats = new LinkedHashMap<>();
        Set<String> custom = new LinkedHashSet<>();
        List<String> dropped = new ArrayList<>();
        List<ToolDefinition> tools = tools(body, formats, custom, dropped);
        int maxTokens = Params.integer(body, "max_output_tokens", -1, 1, Integer.MAX_VALUE);
        float temperature = Params.number(body, "temperature", SamplingParams.DEFAULTS.temperature(), 0, 2);
        float topP = Params.number(body, "top_p", SamplingParams.DEFAULTS.topP(), 0, 1);
        SamplingParams sampling = SamplingChain.read(
                        body,
                        SamplingParams.builder()
                                .temperature(temperature)
                                .topP(topP == 0 ? Float.MIN_VALUE : topP)
                                // llama-server's fields, as on the chat route (its Responses route converts to chat)
                                .seed(Params.int64(body, "seed", -1))
                                .logitBias(GenerationParams.logitBias(body.get("logit_bias"))))
                .build();

        // Its other fields (summary, ...) are named as ignored, by their path.
        Fields reasoning = body.nested("reasoning");
        String effort = reasoning == null ? null : Params.string(reasoning, "effort", "reasoning", 16);
        Map<String, Object> kwargs = Thinking.effort(ChatRequest.templateKwargs(body), effort, "reasoning.effort");

        JsonNode metadata = Params.object(body, "metadata", "");
        if (metadata != null) {
            if (metadata.size() > MAX_METADATA) {
                throw ApiError.badRequest("metadata", "'metadata' holds at most " + MAX_METADATA + " pairs");
            }
            metadata.properties().forEach(e -> {
                if (e.getKey().length() > 64) {
                    throw ApiError.badRequest("metadata", "metadata keys are at most 64 characters");
                }
                Params.string(metadata, e.getKey(), "metadata", 512);
            });
        }
        StructuredOutput structured = structured(body, tools, dropped).withFreeform(formats);
        boolean keep = Params.bool(body, "store", true);
        boolean stream = Params.bool(body, "stream", false);

        echo.put("instructions", instructions);
        if (maxTokens > 0) {
            echo.put("max_output_tokens", maxTokens);
        } else {
            echo.putNull("max_output_tokens");
        }
        echo.set("metadata", metadata == null ? Json.MAPPER.createObjectNode() : metadata);
        String droppedNote = String.join(", ", dropped);
        if (!droppedNote.isEmpty()) {
            // So a client that reads only the response learns no such tool was offered to the model.
            ((ObjectNode) echo.get("metadata"))
                    .put(
                            "forge_dropped_tools",
                            droppedNote.length() > 512 ? droppedNote.substring(0, 509) + "..." : droppedNote);
        }
        echo.put("parallel_tool_calls", structured.parallel());
        echo.put("previous_response_id", previous);
        ObjectNode r = echo.putObject("reasoning");
        r.put("effort", effort);
        r.putNull("summary");
        echo.put("store", keep);
        echo.put("temperature", temperature);
        echo.put("top_p", topP);
        echo.set(
                "text",
                body.path("text").isObject()
                        ? body.get("text")
                        : Json.MAPPER
                                .createObjectNode()
                                .set("format", Json.MAPPER.createObjectNode().put("type", "text")));
        echo.set(
                "tool_choice",
                body.hasNonNull("tool_choice")
                        ? body.get("tool_choice")
                        : Json.MAPPER.getNodeFactory().textNode("auto"));
        echo.set("tools", toolsEcho(body.get("tools")));
        echo.put("truncation", "disabled");
        echo.put("user", Params.string(body, "user", "", Requests.MAX_USER_LENGTH));

        Lora lora = Lora.read(body); // as llama-server, which reads it from every generating body
        GenerationParams gen = GenerationParams.oneChoice(body, sampling, maxTokens, List.of(), stream, lora);
        ChatPrompt prompt = new ChatPrompt(messages, tools, true, kwargs, images.images());
        ChatRequest chat = ChatRequest.of(model, prompt, gen, body.ignored(), -1, structured);
        return new ResponsesRequest(
                chat, conversation, keep, previous == null ? "" : previous, echo, Set.copyOf(custom));
    }

    /**
     * The input items as messages. Consecutive assistant items (a reasoning item, an output
     * message, function calls) make one assistant turn, as the model wrote them.
     */
    private static List<ChatMessage> input(JsonNode node, ResponseStore store, Images images) {
        if (node == null || node.isNull()) {
            throw ApiError.badRequest("input", "'input' is required: a string or an array of input items");
        }
        if (node.isTextual()) {
            return List.of(ChatMessage.of(Role.USER, node.asText()));
        }
        if (!node.isArray()) {
            throw ApiError.badRequest("input", "'input' must be a string or an array of input items");
        }
        Turns turns = new Turns(images);
        for (int i = 0; i < node.size(); i++) {
            String at = "input[" + i + "]";
            JsonNode item = node.get(i);
            if (!item.isObject()) {
                throw ApiError.badRequest(at, at + " must be an object");
            }
            if ("item_reference".equals(item.path("type").asText())) {
                String id = Params.string(item, "id", at, Requests.MAX_MODEL_LENGTH);
                if (id == null) {
                    throw ApiError.badRequest(at + ".id", at + ".id is required");
                }
                item = store.item(id)
                        .orElseThrow(() -> ApiError.badRequest(
                                at + ".id", "item '" + id + "' is not an output of a response stored here"));
            }
            turns.add(item, at);
        }
        return turns.close();
    }

    /** Messages built item by item, an assistant turn kept open while its items come. */
    private static final class Turns {
        private final List<ChatMessage> out = new ArrayList<>();
        private final Images images;
        private StringBuilder text;
        private StringBuilder reasoning;
        private List<ToolCall> calls;

        Turns(Images images) {
            this.images = images;
        }

        void add(JsonNode item, String at) {
            String type = item.path("type").asText("message");
            switch (type) {
                case "message" -> message(item, at);
                case "function_call" -> {
                    open();
                    JsonNode args = item.get("arguments");
                    String arguments =
                            args == null || args.isNull() ? "{}" : args.isTextual() ? args.asText() : Json.string(args);
                    calls.add(new ToolCall(
                            Params.required(item, "call_id", at), Params.required(item, "name", at), arguments));
                }
                case "custom_tool_call" -> {
                    open();
                    calls.add(CustomTools.call(item, at));
                }
                case "function_call_output", "custom_tool_call_output" -> {
                    flush();
                    String output = textOf(item.get("output"), at + ".output", Set.of("input_text", "output_text"));
                    out.add(ChatMessage.toolResult(Params.required(item, "call_id", at), output));
                }
                case "reasoning" -> {
                    if (text != null && (!text.isEmpty() || !calls.isEmpty())) {
                        flush(); // a new turn's reasoning
                    }
                    open();
                    JsonNode parts = item.path("content").isArray()
                                    && !item.get("content").isEmpty()
                            ? item.get("content")
                            : item.path("summary");
                    for (JsonNode p : parts) {
                        reasoning.append(p.path("text").asText(""));
                    }
                }
                default ->
                    throw ApiError.badRequest(
                            at + ".type",
                            at + ".type '" + type + "' is not supported; use message, "
                                    + "function_call, function_call_output, custom_tool_call, custom_tool_call_output, reasoning or item_reference");
            }
        }

        private void message(JsonNode item, String at) {
            JsonNode roleNode = item.get("role");
            if (roleNode == null || !roleNode.isTextual()) {
                throw ApiError.badRequest(at + ".role", at + ".role is required");
            }
            String role = roleNode.asText();
            if (role.equals("assistant")) {
                open();
                text.append(textOf(item.get("content"), at + ".content", Set.of("output_text", "input_text")));
                return;
            }
            Role r = switch (role) {
                case "user" -> Role.USER;
                case "system" -> Role.SYSTEM;
                case "developer" -> Role.DEVELOPER;
                default ->
                    throw ApiError.badRequest(at + ".role", at + ".role must be user, assistant, system or developer");
            };
            flush();
            out.add(ChatMessage.of(r, textOf(item.get("content"), at + ".content", Set.of("input_text"), images)));
        }

        private void open() {
            if (text == null) {
                text = new StringBuilder();
                reasoning = new StringBuilder();
                calls = new ArrayList<>();
            }
        }

        private void flush() {
            if (text != null) {
                out.add(ChatMessage.calling(text.toString(), calls, reasoning.toString()));
                text = null;
            }
        }

        List<ChatMessage> close() {
            flush();
            return out;
        }
    }

    /** A string, or content parts of the given types joined; images and files are refused. */
    private static String textOf(JsonNode node, String at, Set<String> types) {
        return textOf(node, at, types, null);
    }

    /**
     * A string, or content parts of the given types joined; with {@code images}, each
     * {@code input_image} part ({@code image_url}: a data URI) read into it and a marker in its
     * place. Files are refused.
     */
    private static String textOf(JsonNode node, String at, Set<String> types, Images images) {
        if (node == null || node.isNull()) {
            throw ApiError.badRequest(at, at + " is required");
        }
        if (node.isTextual()) {
            return node.asText();
        }
        if (!node.isArray()) {
            throw ApiError.badRequest(at, at + " must be a string or an array of content parts");
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < node.size(); i++) {
            String pat = at + "[" + i + "]";
            String type = node.get(i).path("type").asText("");
            if (type.equals("refusal")) {
                sb.append(node.get(i).path("refusal").asText(""));
                continue;
            }
            if (type.equals("input_image") && images != null) {
                JsonNode url = node.get(i).get("image_url");
                if (url == null || !url.isTextual()) {
                    throw ApiError.badRequest(
                            pat + ".image_url",
                            pat + ".image_url is required and must be a data URI (file_id is not supported)");
                }
                sb.append(images.dataUri(url.asText(), pat + ".image_url"));
                continue;
            }
            if (!types.contains(type)) {
                throw ApiError.badRequest(
                        pat,
                        pat + ".type '" + type + "' is not supported here"
                                + (type.startsWith("input_image")
                                        ? ": images go in user messages"
                                        : type.startsWith("input_file") ? ": this server reads text and images" : "")
                                + "; use "
                                + String.join(" or ", types.stream().sorted().toList()));
            }
            sb.append(Params.required(node.get(i), "text", pat));
        }
        return sb.toString();
    }

    /**
     * Function tools, flat as the Responses API writes them, and custom tools as functions of one
     * string (their names into {@code custom}, their grammars into {@code formats}); other kinds
     * (web search, ...) are skipped: named as unused, and into {@code dropped}.
     */
    private static List<ToolDefinition> tools(
            Fields body, Map<String, CustomTools.Format> formats, Set<String> custom, List<String> dropped) {
        return Tools.list(body.get("tools"), null, (tool, at, before) -> {
            String type = tool.path("type").asText("");
            if (type.equals("custom")) {
                // Offered as a function of one string, checked as any function is (name, uniqueness).
                ToolDefinition fn = Tools.function(
                        CustomTools.function(tool, at, custom.size(), formats), at, Tools.OPENAI, before);
                custom.add(fn.name());
                return fn;
            }
            if (!type.equals("function")) {
                // A hosted tool (web_search, file_search, ...) runs on OpenAI's side: there is none here.
                String named = at + (type.isEmpty() ? "" : " (" + type + ")");
                body.unused(named);
                dropped.add(named);
                return null;
            }
            return Tools.function(tool, at, Tools.OPENAI, before);
        });
    }

    private static JsonNode toolsEcho(JsonNode node) {
        return node != null && node.isArray() ? node : Json.MAPPER.createArrayNode();
    }

    /** {@code text.format} ({@code text}, {@code json_object}, {@code json_schema}) and {@code tool_choice}. */
    private static StructuredOutput structured(Fields body, List<ToolDefinition> tools, List<String> dropped) {
        String grammar = "";
        String param = "";
        // Its other fields (verbosity, ...) are named as ignored, by their path.
        Fields text = body.nested("text");
        if (text != null) {
            JsonNode format = Params.object(text, "format", "text");
            if (format != null) {
                String type = Params.string(format, "type", "text.format", 32);
                switch (type == null ? "" : type) {
                    case "text" -> {}
                    case "json_object" -> {
                        grammar = StructuredOutput.schemaGrammar(
                                Json.MAPPER.createObjectNode().put("type", "object"), "text.format");
                        param = "text.format";
                    }
                    case "json_schema" -> {
                        grammar = StructuredOutput.schemaGrammar(format.get("schema"), "text.format.schema");
                        param = "text.format";
                    }
                    default ->
                        throw ApiError.badRequest(
                                "text.format.type", "'text.format.type' must be text, json_object or json_schema");
                }
            }
        }
        StructuredOutput.ToolChoice choice = StructuredOutput.ToolChoice.AUTO;
        String function = "";
        JsonNode tc = body.get("tool_choice");
        if (tc != null && !tc.isNull()) {
            if (tc.isTextual()) {
                choice = switch (tc.asText()) {
                    case "none" -> StructuredOutput.ToolChoice.NONE;
                    case "auto" -> StructuredOutput.ToolChoice.AUTO;
                    case "required" -> StructuredOutput.ToolChoice.REQUIRED;
                    default ->
                        throw ApiError.badRequest(
                                "tool_choice",
                                "'tool_choice' must be none, auto, required or "
                                        + "{\"type\": \"function\", \"name\": ...}");
                };
            } else if (tc.isObject()
                    && ("function".equals(tc.path("type").asText())
                            || "custom".equals(tc.path("type").asText()))
                    && tc.path("name").isTextual()) {
                choice = StructuredOutput.ToolChoice.FUNCTION;
                function = tc.get("name").asText();
                if (!tools.stream().anyMatch(t -> t.name().equals(tc.get("name").asText())) && !dropped.isEmpty()) {
                    throw droppedToolChoice(
                            "tool_choice names tool '" + function + "', which is not in 'tools'", dropped);
                }
            } else if (tc.isObject()
                    && tc.path("type").isTextual()
                    && !tc.path("type").asText().equals("allowed_tools")) {
                // A hosted tool's choice ({"type": "web_search"}): the tool is one this server does not run.
                throw droppedToolChoice(
                        "tool_choice asks for a '" + tc.path("type").asText()
                                + "' tool, which this server does not run",
                        dropped);
            } else {
                throw ApiError.badRequest(
                        "tool_choice",
                        "'tool_choice' must be none, auto, required or " + "{\"type\": \"function\", \"name\": ...}");
            }
        }
        if (choice == StructuredOutput.ToolChoice.REQUIRED && tools.isEmpty() && !dropped.isEmpty()) {
            throw droppedToolChoice("tool_choice 'required' needs 'tools'", dropped);
        }
        return StructuredOutput.of(
                grammar, param, choice, function, Params.bool(body, "parallel_tool_calls", true), tools);
    }

    /** A {@code tool_choice} that cannot be met, saying which tools were dropped and why. */
    private static ApiError droppedToolChoice(String message, List<String> dropped) {
        return ApiError.badRequest(
                "tool_choice",
                message + "; dropped: " + String.join(", ", dropped)
                        + ", tool types this server does not run (it runs function and custom tools)");
    }
}
