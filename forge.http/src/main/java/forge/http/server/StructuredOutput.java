package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import forge.api.sampler.SamplingParams;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.ToolDefinition;
import forge.lib.grammar.GbnfGrammar;
import forge.lib.grammar.JsonSchemaGrammar;
import forge.lib.grammar.SchemaGrammarException;
import forge.lib.grammar.UnsupportedSchemaException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a request asks of the output's shape: {@code response_format} (JSON object or JSON
 * Schema), a raw GBNF {@code grammar} (llama-server's extension), and {@code tool_choice} with
 * {@code parallel_tool_calls}. All are turned into a grammar that constrains decoding from the
 * first token, so the output is valid by construction; a schema or grammar that cannot be
 * enforced is a 400 before anything is generated, never an unconstrained answer.
 *
 * <p>Two steps: {@link #parse} checks the request's parameters and converts what does not depend
 * on the model; {@link #apply} adds the tool-call syntax of the model's chat template.
 *
 * @param grammar    the response_format's or raw grammar; empty for none
 * @param grammarParam the parameter the grammar came from, for errors
 * @param toolChoice none, auto, required or function
 * @param function   the forced function's name when {@code toolChoice} is function, else empty
 * @param parallel   {@code parallel_tool_calls}
 * @param freeform   the grammars of freeform tools' one string (Responses' {@code custom} tools), by tool name
 */
record StructuredOutput(
        String grammar,
        String grammarParam,
        ToolChoice toolChoice,
        String function,
        boolean parallel,
        Map<String, CustomTools.Format> freeform) {

    /** OpenAI's {@code tool_choice}. */
    enum ToolChoice {
        NONE,
        AUTO,
        REQUIRED,
        FUNCTION
    }

    /** Nothing asked: free output, tool calls when the model makes them. */
    static final StructuredOutput NONE = new StructuredOutput("", "", ToolChoice.AUTO, "", true, Map.of());

    /**
     * The request's prompt and sampling once the structure is applied.
     *
     * @param unenforced what the request asked that the model's template cannot enforce, for
     *                   {@code X-Forge-Ignored-Params} (and a 400 under {@code --strict}): the grammar
     *                   of a freeform tool the model may call but whose arguments its template writes in
     *                   its own notation
     */
    record Applied(ChatPrompt prompt, SamplingParams sampling, List<String> unenforced) {
        Applied(ChatPrompt prompt, SamplingParams sampling) {
            this(prompt, sampling, List.of());
        }
    }

    static StructuredOutput parse(JsonNode body, List<ToolDefinition> tools) {
        StructuredOutput format = format(body);
        ToolChoice choice = ToolChoice.AUTO;
        String function = "";
        JsonNode tc = body.get("tool_choice");
        if (tc != null && !tc.isNull()) {
            if (tc.isTextual()) {
                choice = switch (tc.asText()) {
                    case "none" -> ToolChoice.NONE;
                    case "auto" -> ToolChoice.AUTO;
                    case "required" -> ToolChoice.REQUIRED;
                    default ->
                        throw ApiError.badRequest(
                                "tool_choice",
                                "'tool_choice' must be none, auto, required or {\"type\": \"function\", \"function\": {\"name\": ...}}");
                };
            } else if (tc.isObject()
                    && "function".equals(tc.path("type").asText())
                    && tc.path("function").path("name").isTextual()) {
                choice = ToolChoice.FUNCTION;
                function = tc.get("function").get("name").asText();
            } else {
                throw ApiError.badRequest(
                        "tool_choice",
                        "'tool_choice' must be none, auto, required or {\"type\": \"function\", \"function\": {\"name\": ...}}");
            }
        }
        return of(
                format.grammar(),
                format.grammarParam(),
                choice,
                function,
                Params.bool(body, "parallel_tool_calls", true),
                tools);
    }

    /**
     * {@code response_format} and {@code grammar} alone: the whole output's shape, all that a
     * request without tools (a completion) can ask.
     */
    static StructuredOutput format(JsonNode body) {
        String grammar = "";
        String param = "";
        JsonNode rf = body.get("response_format");
        if (rf != null && !rf.isNull()) {
            if (!rf.isObject() || !rf.path("type").isTextual()) {
                throw ApiError.badRequest("response_format", "'response_format' must be an object with a 'type'");
            }
            switch (rf.get("type").asText()) {
                case "text" -> {}
                case "json_object" -> {
                    grammar = schemaGrammar(Map.of("type", "object"), "response_format");
                    param = "response_format";
                }
                case "json_schema" -> {
                    JsonNode js = rf.get("json_schema");
                    if (js == null || !js.isObject()) {
                        throw ApiError.badRequest(
                                "response_format.json_schema",
                                "'response_format.json_schema' must be an object"
                                        + " {\"name\", \"schema\", \"strict\"}");
                    }
                    if (js.has("name") && !js.get("name").isTextual()) {
                        throw ApiError.badRequest(
                                "response_format.json_schema.name",
                                "'response_format.json_schema.name' must be a string");
                    }
                    if (js.has("strict")
                            && !js.get("strict").isBoolean()
                            && !js.get("strict").isNull()) {
                        throw ApiError.badRequest(
                                "response_format.json_schema.strict",
                                "'response_format.json_schema.strict' must be a boolean");
                    }
                    JsonNode schema = js.get("schema");
                    if (schema == null || !(schema.isObject() || schema.isBoolean())) {
                        throw ApiError.badRequest(
                                "response_format.json_schema.schema",
                                "'response_format.json_schema.schema' must be a JSON Schema object");
                    }
                    // strict or not, the output is constrained: a grammar is strict by nature.
                    grammar = schemaGrammar(schema, "response_format.json_schema.schema");
                    param = "response_format";
                }
                default ->
                    throw ApiError.badRequest(
                            "response_format.type",
                            "'response_format.type' must be text, json_object or json_schema, got '"
                                    + rf.get("type").asText() + "'");
            }
        }
        JsonNode g = body.get("grammar");
        if (g != null && !g.isNull()) {
            if (!g.isTextual()) {
                throw ApiError.badRequest("grammar", "'grammar' must be a GBNF string");
            }
            if (!grammar.isEmpty()) {
                throw ApiError.badRequest("grammar", "give either 'grammar' or a JSON 'response_format', not both");
            }
            if (!g.asText().isBlank()) {
                try {
                    GbnfGrammar.check(g.asText());
                } catch (GbnfGrammar.InvalidGrammarException e) {
                    throw ApiError.badRequest("grammar", e.getMessage());
                }
                grammar = g.asText();
                param = "grammar";
            }
        }
        return new StructuredOutput(grammar, param, ToolChoice.AUTO, "", true, Map.of());
    }

    /**
     * What a request of any API asks, once read: the checks every route shares (a forced call
     * needs its tool, and excludes a grammar of the whole output).
     *
     * @param grammar  a grammar of the whole output (see {@link #schemaGrammar}), or empty
     * @param param    the parameter the grammar came from, for errors
     * @param function the forced function's name for {@link ToolChoice#FUNCTION}, else empty
     */
    static StructuredOutput of(
            String grammar,
            String param,
            ToolChoice choice,
            String function,
            boolean parallel,
            List<ToolDefinition> tools) {
        if (choice == ToolChoice.FUNCTION
                && tools.stream().noneMatch(t -> t.name().equals(function))) {
            throw ApiError.badRequest(
                    "tool_choice", "tool_choice names function '" + function + "', which is not in 'tools'");
        }
        if (choice == ToolChoice.REQUIRED && tools.isEmpty()) {
            throw ApiError.badRequest("tool_choice", "tool_choice 'required' needs 'tools'");
        }
        if ((choice == ToolChoice.REQUIRED || choice == ToolChoice.FUNCTION) && !grammar.isEmpty()) {
            throw ApiError.badRequest("tool_choice", "a forced tool call cannot be combined with '" + param + "'");
        }
        return new StructuredOutput(grammar, param, choice, function, parallel, Map.of());
    }

    /** This, the arguments of the named tools in the given grammars rather than their schemas'. */
    StructuredOutput withFreeform(Map<String, CustomTools.Format> formats) {
        return new StructuredOutput(grammar, grammarParam, toolChoice, function, parallel, Map.copyOf(formats));
    }

    /**
     * Applies this to a request for a model with {@code template}: the grammar, and for tool
     * calls the template's call syntax over each tool's argument schema.
     */
    Applied apply(ChatTemplate template, ChatPrompt prompt, SamplingParams sampling) {
        if (toolChoice == ToolChoice.NONE) {
            // OpenAI's "none": the model must not call tools; with no tools, none are parsed either.
            return new Applied(
                    new ChatPrompt(
                            prompt.messages(),
                            List.of(),
                            prompt.addGenerationPrompt(),
                            prompt.options(),
                            prompt.images()),
                    grammar.isEmpty()
                            ? sampling
                            : sampling.toBuilder().grammar(grammar).build());
        }
        if (!grammar.isEmpty()) {
            // A response_format or grammar shapes the whole output; tools stay offered but unforced.
            return new Applied(prompt, sampling.toBuilder().grammar(grammar).build());
        }
        if (prompt.tools().isEmpty()) {
            return new Applied(prompt, sampling);
        }
        List<ToolDefinition> tools = toolChoice == ToolChoice.FUNCTION
                ? prompt.tools().stream().filter(t -> t.name().equals(function)).toList()
                : prompt.tools();
        boolean forced = toolChoice != ToolChoice.AUTO;
        if (!forced && template.toolCallTriggers().isEmpty()) {
            return new Applied(prompt, sampling); // nothing opens a call in this format: calls stay free text
        }
        JsonSchemaGrammar builder = JsonSchemaGrammar.builder();
        Map<String, String> rules = new LinkedHashMap<>();
        for (ToolDefinition tool : tools) {
            int index = prompt.tools().indexOf(tool);
            if (freeform.containsKey(tool.name())) {
                rules.put(tool.name(), CustomTools.addRules(builder, freeform.get(tool.name())));
                continue;
            }
            Map<String, Object> schema = tool.parameters().isEmpty() ? Map.of("type", "object") : tool.parameters();
            try {
                rules.put(tool.name(), builder.addSchema("tool" + index + "-args", schema));
            } catch (SchemaGrammarException e) {
                throw schemaError(
                        "tools[" + index + "].function.parameters", "tool '" + tool.name() + "': " + e.getMessage(), e);
            }
        }
        Optional<String> calls = template.toolCallGrammar(tools, rules, parallel);
        if (calls.isEmpty()) {
            if (forced) {
                throw ApiError.badRequest(
                        "tool_choice",
                        "the chat template '" + template.name()
                                + "' has no tool-call syntax, so a tool call cannot be forced");
            }
            return new Applied(prompt, sampling);
        }
        List<String> unenforced = new ArrayList<>();
        for (ToolDefinition tool : tools) {
            CustomTools.Format format = freeform.get(tool.name());
            if (format != null && !CustomTools.enforced(calls.get(), format)) {
                if (forced) {
                    throw ApiError.badRequest(
                            "tools",
                            "tool '" + tool.name() + "' has a grammar, but the chat template '" + template.name()
                                    + "' writes tool arguments in its own notation, where the grammar cannot be enforced");
                }
                // Offered, not forced: refusing would keep the model from every tool (Codex offers apply_patch
                // on each turn); the model may still call it, its text unconstrained, and the header says so.
                unenforced.add("tools[" + tool.name() + "].format (not enforced by the chat template '"
                        + template.name() + "')");
            }
        }
        String grammar = builder.build() + calls.get();
        try {
            GbnfGrammar.check(grammar);
        } catch (GbnfGrammar.InvalidGrammarException e) {
            // The template's syntax is tested; what fails here is the tools' size against the limits.
            throw ApiError.badRequest("tools", "the grammar for these tools is refused: " + e.getMessage());
        }
        return new Applied(
                prompt,
                forced
                        ? sampling.toBuilder().grammar(grammar).build()
                        : sampling.toBuilder()
                                .lazyGrammar(grammar, template.toolCallTriggers())
                                .build(),
                List.copyOf(unenforced));
    }

    /**
     * The grammar of JSON that {@code schema} (a JSON Schema object, or {@code true}/{@code false})
     * accepts; a schema that cannot be enforced is a 400 naming {@code param}.
     */
    static String schemaGrammar(JsonNode schema, String param) {
        if (schema == null || !(schema.isObject() || schema.isBoolean())) {
            throw ApiError.badRequest(param, "'" + param + "' must be a JSON Schema object");
        }
        return schemaGrammar(tree(schema), param);
    }

    private static String schemaGrammar(Map<String, Object> schema, String param) {
        String grammar;
        try {
            grammar = JsonSchemaGrammar.convert(schema);
        } catch (SchemaGrammarException e) {
            throw schemaError(param, e);
        }
        try {
            GbnfGrammar.check(grammar); // within llama.cpp's limits, as every grammar that reaches it
        } catch (GbnfGrammar.InvalidGrammarException e) {
            throw ApiError.badRequest(param, "the schema's grammar is refused: " + e.getMessage());
        }
        return grammar;
    }

    /** An unenforceable feature has its own code, so clients can tell it from a malformed schema. */
    private static ApiError schemaError(String param, SchemaGrammarException e) {
        return schemaError(param, e.getMessage(), e);
    }

    private static ApiError schemaError(String param, String message, SchemaGrammarException e) {
        return e instanceof UnsupportedSchemaException
                ? new ApiError(400, "invalid_request_error", "unsupported_schema_feature", param, message)
                : ApiError.badRequest(param, message);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> tree(JsonNode schema) {
        if (schema.isBoolean()) {
            return schema.asBoolean() ? Map.of() : Map.of("not", Map.of());
        }
        return Json.MAPPER.convertValue(schema, LinkedHashMap.class);
    }
}
