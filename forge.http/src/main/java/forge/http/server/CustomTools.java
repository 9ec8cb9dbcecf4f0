package forge.http.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.template.ToolCall;
import forge.lib.grammar.JsonSchemaGrammar;
import forge.lib.grammar.LarkGrammar;
import forge.lib.grammar.LarkGrammarException;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * OpenAI's freeform {@code custom} tools on {@code /v1/responses} (Codex's {@code apply_patch}):
 * a tool whose call carries one plain string, {@code input}, maybe in a Lark or regex grammar.
 *
 * <p>How they map onto the one chat request: a custom tool is offered to the chat template as a
 * function taking one string, {@code input}, which is how the open-weight models' templates present
 * freeform tools; its call is parsed back as the template parses any call, and answered as a
 * {@code custom_tool_call} item whose {@code input} is that string. The grammar's text is shown to
 * the model in the parameter's description (a model that was not trained on the format learns it
 * there rather than from the first token it is refused). A grammar becomes the rule of
 * the call's JSON arguments ({@code {"input": "<the text, JSON-escaped>"}}), which the template's
 * tool-call grammar references as it does a schema's rule: forced or lazily engaged, the text
 * obeys it. A template that writes arguments in its own notation (not one JSON object, such as
 * Qwen 3.5's {@code <parameter=...>} text) cannot carry such a rule ({@link #enforced}): a call
 * forced there is a 400; a tool merely offered stays offered, its grammar named as not enforced in
 * {@code X-Forge-Ignored-Params} (a 400 under {@code --strict}), never dropped in silence.
 */
final class CustomTools {

    /** The one argument a custom tool's function takes. */
    static final String INPUT = "input";

    private CustomTools() {}

    /**
     * A custom tool's grammar as GBNF rules for its JSON arguments.
     *
     * @param rules        the rules, one per line, every name starting with {@code argumentRule}
     * @param argumentRule the rule of the whole arguments object
     */
    record Format(String rules, String argumentRule) {}

    /**
     * The function a custom tool ({@code {"type": "custom", "name", "description", "format"}}) is
     * offered as, in chat's shape ({@code {"name", "description", "parameters"}}); a grammar format
     * is translated now, so a bad one is a 400 before any model loads, and put in {@code formats}
     * under the tool's name, its rules named after {@code "custom" + ordinal}.
     */
    static ObjectNode function(JsonNode tool, String at, int ordinal, Map<String, Format> formats) {
        String name = Params.string(tool, "name", at, 64);
        if (name == null) {
            throw ApiError.badRequest(at + ".name", at + ".name is required");
        }
        String description = Params.string(tool, "description", at, 1 << 20);
        ObjectNode fn = Json.MAPPER.createObjectNode().put("name", name);
        if (description != null) {
            fn.put("description", description);
        }
        ObjectNode parameters = fn.putObject("parameters").put("type", "object");
        ObjectNode input = parameters.putObject("properties").putObject(INPUT).put("type", "string");
        parameters.putArray("required").add(INPUT);
        parameters.put("additionalProperties", false);
        JsonNode format = Params.object(tool, "format", at);
        String type = format == null ? "text" : Params.string(format, "type", at + ".format", 32);
        switch (type == null ? "" : type) {
            case "text" -> {}
            case "grammar" -> {
                String syntax = Params.string(format, "syntax", at + ".format", 32);
                String definition = Params.required(format, "definition", at + ".format");
                String rule = "custom" + ordinal + "-input";
                String rules;
                try {
                    rules = switch (syntax == null ? "" : syntax) {
                        case "lark" -> LarkGrammar.rules(definition, rule, LarkGrammar.Encoding.JSON_STRING);
                        case "regex" -> LarkGrammar.regexRules(definition, rule, LarkGrammar.Encoding.JSON_STRING);
                        default ->
                            throw ApiError.badRequest(
                                    at + ".format.syntax", at + ".format.syntax must be lark or regex");
                    };
                } catch (LarkGrammarException e) {
                    throw ApiError.badRequest(at + ".format.definition", "tool '" + name + "': " + e.getMessage());
                }
                input.put("description", "Text in this " + syntax + " grammar:\n" + definition);
                String args = "custom" + ordinal + "-args";
                // {"input": "<text>"}, as GBNF literals spell it: the quotes escaped.
                formats.put(
                        name,
                        new Format(
                                rules + args + " ::= \"{\\\"" + INPUT + "\\\": \\\"\" " + rule + " \"\\\"}\"\n", args));
            }
            default -> throw ApiError.badRequest(at + ".format.type", at + ".format.type must be text or grammar");
        }
        return fn;
    }

    /** Adds a format's rules to a tool grammar being built; returns its arguments rule. */
    static String addRules(JsonSchemaGrammar grammar, Format format) {
        for (String line : format.rules().split("\n")) {
            int sep = line.indexOf(" ::= ");
            String name = line.substring(0, sep);
            if (!grammar.addRule(name, line.substring(sep + 5)).equals(name)) {
                throw new IllegalStateException(
                        "rule " + name + " of a custom tool is taken"); // names are the tool's own
            }
        }
        return format.argumentRule();
    }

    /** Whether a template's tool-call grammar uses a format's rule, so the format is enforced. */
    static boolean enforced(String callsGrammar, Format format) {
        return Pattern.compile("(?<![\\w-])" + Pattern.quote(format.argumentRule()) + "(?![\\w-])")
                .matcher(callsGrammar)
                .find();
    }

    /** The arguments of a call whose input is {@code input}: {@code {"input": ...}}. */
    static String arguments(String input) {
        try {
            return Json.MAPPER.writeValueAsString(Map.of(INPUT, input));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The input of a call from its JSON arguments: the string under {@code input}; a model that
     * wrote something else (unforced) gets its one value, or the arguments as they are.
     */
    static String input(String arguments) {
        JsonNode args;
        try {
            args = Json.MAPPER.readTree(arguments);
        } catch (JsonProcessingException e) {
            // Arguments cut short (max_output_tokens): as much of the input as they hold.
            String partial = partialInput(arguments);
            return partial.isEmpty() ? arguments : partial;
        }
        JsonNode value = args != null && args.isObject() ? args.get(INPUT) : null;
        if (value == null && args != null && args.isObject() && args.size() == 1) {
            value = args.elements().next();
        }
        if (value == null) {
            return arguments;
        }
        return value.isTextual() ? value.asText() : Json.string(value);
    }

    private static final Pattern OPENING = Pattern.compile("^\\s*\\{\\s*\"" + INPUT + "\"\\s*:\\s*\"");

    /**
     * As much of the input as the arguments written so far hold, for streaming: the string after
     * {@code {"input": "}, decoded up to its end or up to an escape not yet complete; empty while
     * the arguments do not start so.
     */
    static String partialInput(String arguments) {
        Matcher m = OPENING.matcher(arguments);
        if (!m.find()) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        int i = m.end();
        while (i < arguments.length()) {
            char c = arguments.charAt(i);
            if (c == '"') {
                break;
            }
            if (c != '\\') {
                sb.append(c);
                i++;
                continue;
            }
            if (i + 1 >= arguments.length()) {
                break;
            }
            char e = arguments.charAt(i + 1);
            if (e == 'u') {
                if (i + 6 > arguments.length()
                        || !arguments.substring(i + 2, i + 6).chars().allMatch(d -> Character.digit(d, 16) >= 0)) {
                    break;
                }
                sb.append((char) Integer.parseInt(arguments.substring(i + 2, i + 6), 16));
                i += 6;
                continue;
            }
            sb.append(
                    switch (e) {
                        case 'n' -> '\n';
                        case 'r' -> '\r';
                        case 't' -> '\t';
                        case 'b' -> '\b';
                        case 'f' -> '\f';
                        default -> e;
                    });
            i += 2;
        }
        // A high surrogate waits for its pair, so a delta never splits a character.
        if (!sb.isEmpty() && Character.isHighSurrogate(sb.charAt(sb.length() - 1))) {
            sb.setLength(sb.length() - 1);
        }
        return sb.toString();
    }

    /** A {@code custom_tool_call} output item. */
    static ObjectNode item(String id, String callId, String name, String input, String status) {
        return Json.MAPPER
                .createObjectNode()
                .put("id", id)
                .put("type", "custom_tool_call")
                .put("status", status)
                .put("call_id", callId)
                .put("name", name)
                .put("input", input);
    }

    /** A {@code custom_tool_call} input item as the call the assistant made. */
    static ToolCall call(JsonNode item, String at) {
        return new ToolCall(
                Params.required(item, "call_id", at),
                Params.required(item, "name", at),
                arguments(Params.required(item, "input", at)));
    }
}
