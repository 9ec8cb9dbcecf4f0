package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import forge.api.template.ToolDefinition;
import forge.lib.grammar.InvalidSchemaException;
import forge.lib.grammar.JsonSchemaGrammar;
import forge.lib.grammar.SchemaGrammarException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The one reader of a tool's function, for every door. Each API keeps a function's fields in its
 * own place (chat completions in {@code tools[i].function} with a {@code parameters} schema,
 * Responses flat in {@code tools[i]} with {@code parameters}, Anthropic flat with an
 * {@code input_schema}); a door hands the object that holds them, its path, and the name of its
 * schema field, so every refusal names the field as that door's request wrote it. A door keeps
 * what is its own: the tool's {@code type}, and which tools it skips.
 */
final class Tools {

    private Tools() {}

    /** OpenAI's rule for function names, which templates and grammars rely on too. */
    private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9_-]{1,64}");

    /**
     * Where a door keeps a function's schema, and whether its tools carry OpenAI's {@code strict}.
     *
     * @param schema the schema's field ({@code parameters}, {@code input_schema})
     * @param strict whether a {@code strict} flag is read (and checked): it changes nothing here,
     *               since a grammar is strict by nature
     */
    record Layout(String schema, boolean strict) {}

    /** OpenAI's chat completions and Responses: {@code parameters}, with {@code strict}. */
    static final Layout OPENAI = new Layout("parameters", true);
    /** Anthropic's Messages: {@code input_schema}. */
    static final Layout ANTHROPIC = new Layout("input_schema", false);

    /** A door's reading of its tool {@code tool} at {@code at}: its function, or null for a tool it skips. */
    interface Door {
        ToolDefinition read(JsonNode tool, String at, List<ToolDefinition> before);
    }

    /**
     * The {@code tools} array, each tool read by {@code door} in order; an absent one is none.
     *
     * @param shape what a tool looks like, for the refusal of one that is no object; null where
     *              the door reads any value (Responses, which skips what it does not run)
     */
    static List<ToolDefinition> list(JsonNode given, String shape, Door door) {
        JsonNode node = Params.array(given, "tools");
        List<ToolDefinition> tools = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            String at = "tools[" + i + "]";
            JsonNode tool = node.get(i);
            if (shape != null && !tool.isObject()) {
                throw ApiError.badRequest(at, at + " must be an object " + shape);
            }
            ToolDefinition read = door.read(tool, at, tools);
            if (read != null) {
                tools.add(read);
            }
        }
        return tools;
    }

    /**
     * The function whose {@code name}, {@code description} and schema {@code fn} holds at
     * {@code at} ({@code tools[2].function}, {@code tools[2]}), checked against the tools before
     * it: a name by OpenAI's rule and unique, a schema of type object that is well formed (one
     * that only uses features a grammar cannot enforce is fine).
     */
    static ToolDefinition function(JsonNode fn, String at, Layout layout, List<ToolDefinition> before) {
        String name = Params.string(fn, "name", at, 64);
        String nameAt = Params.path(at, "name");
        if (name == null || !NAME.matcher(name).matches()) {
            throw ApiError.badRequest(
                    nameAt,
                    nameAt + " is required and must match ^[a-zA-Z0-9_-]{1,64}$"
                            + (name == null ? "" : ", got '" + name + "'"));
        }
        if (before.stream().anyMatch(t -> t.name().equals(name))) {
            throw ApiError.badRequest(nameAt, "two tools are named '" + name + "'");
        }
        String description = Params.string(fn, "description", at, 1 << 20);
        if (layout.strict()) {
            Params.bool(fn, "strict", at, false);
        }
        String schemaAt = Params.path(at, layout.schema());
        JsonNode parameters = Params.object(fn, layout.schema(), at);
        if (parameters != null
                && parameters.has("type")
                && !"object".equals(parameters.get("type").asText(null))) {
            throw ApiError.badRequest(
                    schemaAt,
                    schemaAt + " must be a JSON Schema of type \"object\", got type " + parameters.get("type"));
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> params =
                parameters != null ? Json.MAPPER.convertValue(parameters, LinkedHashMap.class) : Map.of();
        try {
            // A malformed schema (an unknown type, a dangling $ref) is refused whether or not a
            // grammar will enforce it.
            JsonSchemaGrammar.convert(params.isEmpty() ? Map.of("type", "object") : params);
        } catch (InvalidSchemaException e) {
            throw ApiError.badRequest(schemaAt, "tool '" + name + "': " + e.getMessage());
        } catch (SchemaGrammarException e) {
            // unsupported for enforcement only
        }
        return new ToolDefinition(name, description == null ? "" : description, params);
    }
}
