package forge.lib.grammar;

import forge.lib.text.Gbnf;
import forge.lib.text.PythonJson;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Converts JSON Schema to a GBNF grammar that llama.cpp's grammar sampler enforces while decoding,
 * following llama.cpp's {@code json_schema_to_grammar} ({@code common/json-schema-to-grammar.cpp})
 * rule for rule, with three differences that make outputs valid rather than merely likely:
 * a feature it cannot enforce throws {@link UnsupportedSchemaException} (llama.cpp warns and
 * accepts any string or ignores the keyword), {@code date} only admits real month lengths
 * (never {@code 02-31}), and regex {@code .} and negated classes never admit a raw quote,
 * backslash or control character (which would break the JSON string).
 *
 * <p>Schemas are JSON trees as Jackson's {@code convertValue(node, Object.class)} makes them:
 * maps, lists, strings, numbers, booleans and {@code null}.
 *
 * <p>Not thread-safe: a builder belongs to one conversion. {@link #convert} is.
 */
public final class JsonSchemaGrammar {

    private static final String SPACE_RULE = "| \" \" | \"\\n\"{1,2} [ \\t]{0,20}";

    private record Builtin(String content, List<String> deps) {}

    private static final Map<String, Builtin> PRIMITIVES = Map.ofEntries(
            Map.entry("boolean", new Builtin("(\"true\" | \"false\")", List.of())),
            Map.entry("decimal-part", new Builtin("[0-9]{1,16}", List.of())),
            Map.entry("integral-part", new Builtin("[0] | [1-9] [0-9]{0,15}", List.of())),
            Map.entry(
                    "number",
                    new Builtin(
                            "(\"-\"? integral-part) (\".\" decimal-part)? ([eE] [-+]? integral-part)?",
                            List.of("integral-part", "decimal-part"))),
            Map.entry("integer", new Builtin("(\"-\"? integral-part)", List.of("integral-part"))),
            Map.entry(
                    "value",
                    new Builtin(
                            "object | array | string | number | boolean | null",
                            List.of("object", "array", "string", "number", "boolean", "null"))),
            Map.entry(
                    "object",
                    new Builtin(
                            "\"{\" space ( string \":\" space value (\",\" space string \":\" space value)* )? space \"}\"",
                            List.of("string", "value"))),
            Map.entry(
                    "array", new Builtin("\"[\" space ( value (\",\" space value)* )? space \"]\"", List.of("value"))),
            Map.entry(
                    "uuid",
                    new Builtin(
                            "\"\\\"\" [0-9a-fA-F]{8} \"-\" [0-9a-fA-F]{4} \"-\" [0-9a-fA-F]{4} \"-\" [0-9a-fA-F]{4} \"-\" [0-9a-fA-F]{12} \"\\\"\"",
                            List.of())),
            Map.entry(
                    "char",
                    new Builtin(
                            "[^\"\\\\\\x7F\\x00-\\x1F] | [\\\\] ([\"\\\\bfnrt] | \"u\" [0-9a-fA-F]{4})", List.of())),
            Map.entry("string", new Builtin("\"\\\"\" char* \"\\\"\"", List.of("char"))),
            Map.entry("null", new Builtin("\"null\"", List.of())),
            // llama.cpp's date admits 02-31; these admit only days that exist (Feb 29 left out).
            Map.entry(
                    "date",
                    new Builtin(
                            "[0-9]{4} \"-\" ( ( \"0\" [13578] | \"1\" [02] ) \"-\" ( \"0\" [1-9] | [1-2] [0-9] | \"3\" [0-1] )"
                                    + " | ( \"0\" [469] | \"11\" ) \"-\" ( \"0\" [1-9] | [1-2] [0-9] | \"30\" )"
                                    + " | \"02\" \"-\" ( \"0\" [1-9] | \"1\" [0-9] | \"2\" [0-8] ) )",
                            List.of())),
            Map.entry(
                    "time",
                    new Builtin(
                            "([01] [0-9] | \"2\" [0-3]) \":\" [0-5] [0-9] \":\" [0-5] [0-9] ( \".\" [0-9]{3} )? ( \"Z\" | ( \"+\" | \"-\" ) ( \"0\" [0-9] | \"1\" [0-7] ) \":\" [0-5] [0-9] )",
                            List.of())),
            Map.entry("date-time", new Builtin("date \"T\" time", List.of("date", "time"))),
            Map.entry("date-string", new Builtin("\"\\\"\" date \"\\\"\"", List.of("date"))),
            Map.entry("time-string", new Builtin("\"\\\"\" time \"\\\"\"", List.of("time"))),
            Map.entry("date-time-string", new Builtin("\"\\\"\" date-time \"\\\"\"", List.of("date-time"))),
            Map.entry(
                    "ipv4-string",
                    new Builtin(
                            "\"\\\"\" ipv4-octet \".\" ipv4-octet \".\" ipv4-octet \".\" ipv4-octet \"\\\"\"",
                            List.of("ipv4-octet"))),
            Map.entry(
                    "ipv4-octet",
                    new Builtin(
                            "\"25\" [0-5] | \"2\" [0-4] [0-9] | \"1\" [0-9] [0-9] | [1-9] [0-9] | [0-9]", List.of())));

    /** The {@code format}s enforced, each by a primitive rule. */
    private static final Map<String, String> FORMATS = Map.of(
            "date",
            "date-string",
            "time",
            "time-string",
            "date-time",
            "date-time-string",
            "uuid",
            "uuid",
            "ipv4",
            "ipv4-string");

    /** Keywords that constrain values in ways a context-free grammar cannot (or this one does not) enforce. */
    private static final Set<String> UNSUPPORTED = Set.of(
            "not",
            "if",
            "then",
            "else",
            "patternProperties",
            "propertyNames",
            "dependentRequired",
            "dependentSchemas",
            "dependencies",
            "contains",
            "minContains",
            "maxContains",
            "unevaluatedProperties",
            "unevaluatedItems",
            "multipleOf",
            "minProperties",
            "maxProperties",
            "$dynamicRef",
            "$recursiveRef",
            "additionalItems");

    private static final Set<String> TYPES =
            Set.of("object", "array", "string", "number", "integer", "boolean", "null");

    /** The keywords that constrain one type, in the order a schema without {@code type} is tried. */
    private static final List<Map.Entry<String, List<String>>> TYPE_KEYWORDS = List.of(
            Map.entry("object", List.of("properties", "additionalProperties", "required")),
            Map.entry("array", List.of("items", "prefixItems", "minItems", "maxItems")),
            Map.entry("string", List.of("pattern", "format", "minLength", "maxLength")),
            Map.entry("number", List.of("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")));

    /**
     * The longest property name that additional properties can be told apart from: the grammar of
     * "any other name" nests one group per character (as llama.cpp's {@code _not_strings} does), and
     * groups nest at most {@link GbnfGrammar#MAX_NESTING} deep. Checked before that grammar is built,
     * which recurses as deep.
     */
    static final int MAX_EXCLUDED_NAME = GbnfGrammar.MAX_NESTING - 8;

    private final Map<String, String> rules = new TreeMap<>();
    private final Set<String> refsBeingResolved = new HashSet<>();
    /**
     * The refs being resolved since the grammar last matched a character ({@code {}, {@code [}, a
     * quote...): one of them met again refers back to itself at the start of its own rule, which
     * llama.cpp refuses as left recursive.
     */
    private Set<String> leftmostRefs = new HashSet<>();
    /** The schema whose {@code $ref}s resolve against, and the rule-name prefix of its refs. */
    private Object root;

    private String refPrefix = "";

    private JsonSchemaGrammar() {
        rules.put("space", SPACE_RULE);
    }

    /** A builder for a grammar of several schemas (one per tool, say) and hand-written rules. */
    public static JsonSchemaGrammar builder() {
        return new JsonSchemaGrammar();
    }

    /**
     * The grammar whose {@code root} matches the JSON texts that {@code schema} accepts.
     *
     * @throws InvalidSchemaException     when the schema is malformed, naming where
     * @throws UnsupportedSchemaException when it uses a feature that cannot be enforced
     */
    public static String convert(Map<String, Object> schema) {
        JsonSchemaGrammar b = new JsonSchemaGrammar();
        b.addSchema("", schema);
        return b.build();
    }

    /**
     * Adds the rules for one schema under a name prefix and returns the name of the rule that
     * matches it. The empty name makes it {@code root}.
     */
    public String addSchema(String name, Map<String, Object> schema) {
        Objects.requireNonNull(schema, "schema");
        root = schema;
        refPrefix = name.isEmpty() ? "" : name + "-";
        refsBeingResolved.clear();
        leftmostRefs = new HashSet<>();
        return visit(schema, name, "");
    }

    /** Adds a hand-written rule (body in GBNF); returns its name, suffixed when taken by another body. */
    public String addRule(String name, String body) {
        String esc = name.replaceAll("[^a-zA-Z0-9-]+", "-");
        if (!rules.containsKey(esc) || rules.get(esc).equals(body)) {
            rules.put(esc, body);
            return esc;
        }
        int i = 0;
        while (rules.containsKey(esc + i) && !rules.get(esc + i).equals(body)) {
            i++;
        }
        rules.put(esc + i, body);
        return esc + i;
    }

    /** The grammar: every rule, one per line. */
    public String build() {
        StringBuilder sb = new StringBuilder();
        rules.forEach((k, v) -> sb.append(k).append(" ::= ").append(v).append('\n'));
        return sb.toString();
    }

    /**
     * A JSON value as JSON text, for {@code const} and {@code enum} literals: compact, spelled as
     * llama.cpp's {@code json_schema_to_grammar} dumps it ({@code 2.0} stays {@code 2.0}).
     */
    private static String json(Object value) {
        try {
            return PythonJson.compact(value);
        } catch (IllegalArgumentException e) {
            throw new InvalidSchemaException(
                    "", "not a JSON value: " + value.getClass().getSimpleName());
        }
    }

    // ---------------------------------------------------------------- visiting

    private static boolean reserved(String name) {
        return name.equals("root") || PRIMITIVES.containsKey(name);
    }

    /** Adds the built-in rule {@code primitive} under {@code name}, and the built-ins it uses; returns its name. */
    String addPrimitive(String name, String primitive) {
        Builtin b = PRIMITIVES.get(primitive);
        String n = addRule(name, b.content());
        for (String dep : b.deps()) {
            if (!rules.containsKey(dep)) {
                addPrimitive(dep, dep);
            }
        }
        return n;
    }

    /** The built-in rule of {@code type}: as {@code root} when the schema is the root, else under its own name. */
    String visitPrimitive(String ruleName, String type) {
        return addPrimitive(ruleName.equals("root") ? "root" : type, type);
    }

    @SuppressWarnings("unchecked")
    private String visit(Object node, String name, String at) {
        String ruleName = reserved(name) ? name + "-" : name.isEmpty() ? "root" : name;
        String sub = name.isEmpty() ? "" : name + "-";
        if (node instanceof Boolean b) {
            if (!b) {
                throw new UnsupportedSchemaException(at, "false", "the schema 'false' accepts nothing");
            }
            return addRule(ruleName, addPrimitive("value", "value"));
        }
        if (!(node instanceof Map<?, ?> raw)) {
            throw new InvalidSchemaException(at, "a schema must be an object or a boolean");
        }
        Map<String, Object> schema = (Map<String, Object>) raw;
        for (String key : schema.keySet()) {
            if (UNSUPPORTED.contains(key)) {
                throw new UnsupportedSchemaException(at + "/" + escape(key), key, "");
            }
        }
        if (Boolean.TRUE.equals(schema.get("uniqueItems"))
                && Repetitions.intOr(schema, "maxItems", Integer.MAX_VALUE, at) > 1) {
            throw new UnsupportedSchemaException(at + "/uniqueItems", "uniqueItems", "");
        }
        Object ref = schema.get("$ref");
        if (ref != null) {
            if (!(ref instanceof String r)) {
                throw new InvalidSchemaException(at + "/$ref", "$ref must be a string");
            }
            return addRule(ruleName, resolveRef(r, at + "/$ref"));
        }
        if (Boolean.TRUE.equals(schema.get("nullable"))) {
            // OpenAPI's nullable: the schema, or null.
            Map<String, Object> rest = new LinkedHashMap<>(schema);
            rest.remove("nullable");
            return addRule(ruleName, visit(rest, sub + "nonnull", at) + " | " + addPrimitive("null", "null"));
        }
        for (String union : List.of("oneOf", "anyOf")) {
            if (schema.containsKey(union)) {
                List<Object> alts = list(schema.get(union), at + "/" + union);
                if (alts.isEmpty()) {
                    throw new InvalidSchemaException(at + "/" + union, union + " must not be empty");
                }
                List<String> names = new ArrayList<>();
                for (int i = 0; i < alts.size(); i++) {
                    names.add(visit(
                            alts.get(i),
                            name + (name.isEmpty() ? "alternative-" : "-") + i,
                            at + "/" + union + "/" + i));
                }
                return addRule(ruleName, String.join(" | ", names));
            }
        }
        if (schema.containsKey("allOf")) {
            List<Object> parts = list(schema.get("allOf"), at + "/allOf");
            if (parts.size() != 1) {
                throw new UnsupportedSchemaException(at + "/allOf", "allOf", "only allOf with one schema is supported");
            }
            return addRule(ruleName, visit(parts.get(0), sub + "all", at + "/allOf/0"));
        }
        if (schema.containsKey("const")) {
            return addRule(ruleName, Gbnf.literal(json(schema.get("const"))));
        }
        if (schema.containsKey("enum")) {
            List<Object> values = list(schema.get("enum"), at + "/enum");
            if (values.isEmpty()) {
                throw new InvalidSchemaException(at + "/enum", "enum must not be empty");
            }
            List<String> alts = new ArrayList<>();
            for (Object v : values) {
                alts.add(Gbnf.literal(json(v)));
            }
            return addRule(ruleName, "(" + String.join(" | ", alts) + ")");
        }
        Object type = schema.get("type");
        if (type instanceof List<?> types) {
            if (types.isEmpty()) {
                throw new InvalidSchemaException(at + "/type", "type must not be an empty array");
            }
            List<String> names = new ArrayList<>();
            for (int i = 0; i < types.size(); i++) {
                Map<String, Object> one = new LinkedHashMap<>(schema);
                one.put("type", types.get(i));
                names.add(visit(one, name + (name.isEmpty() ? "type-" : "-type-") + i, at));
            }
            return addRule(ruleName, String.join(" | ", names));
        }
        if (type != null && !(type instanceof String t && TYPES.contains(t))) {
            throw new InvalidSchemaException(
                    at + "/type",
                    "unknown type " + json(type)
                            + "; expected one of object, array, string, number, integer, boolean, null");
        }
        String t = type == null ? inferType(schema) : (String) type;
        return switch (t) {
            case "object" -> afterAToken(() -> object(schema, name, ruleName, at));
            case "array" -> afterAToken(() -> array(schema, sub, ruleName, at));
            case "string" -> string(schema, ruleName, at);
            case "integer" -> NumberRules.integer(this, schema, ruleName, at);
            case "number" -> NumberRules.number(this, schema, ruleName, at);
            case "boolean" -> visitPrimitive(ruleName, "boolean");
            case "null" -> visitPrimitive(ruleName, "null");
            default -> addRule(ruleName, addPrimitive("value", "value"));
        };
    }

    /** Visits what comes after the opening "{" or "[": no ref met from here on is at the start of a rule that is being resolved. */
    private String afterAToken(Supplier<String> visit) {
        Set<String> outer = leftmostRefs;
        leftmostRefs = new HashSet<>();
        try {
            return visit.get();
        } finally {
            leftmostRefs = outer;
        }
    }

    /** The type a schema without {@code type} constrains, from its keywords; "" for any value. */
    private static String inferType(Map<String, Object> s) {
        for (Map.Entry<String, List<String>> type : TYPE_KEYWORDS) {
            if (type.getValue().stream().anyMatch(s::containsKey)) {
                return type.getKey();
            }
        }
        return "";
    }

    @SuppressWarnings("unchecked")
    private String resolveRef(String ref, String at) {
        if (!ref.startsWith("#")) {
            throw new UnsupportedSchemaException(
                    at, "$ref", "only local references (#/...) are supported, not '" + ref + "'");
        }
        String fragment = ref.substring(1);
        String refName = refPrefix + "ref" + fragment.replaceAll("[^a-zA-Z0-9-]+", "-");
        if (leftmostRefs.contains(ref)) {
            throw new InvalidSchemaException(
                    at,
                    "$ref '" + ref + "' refers back to itself before anything is matched"
                            + " (through $ref, anyOf, oneOf or allOf alone), which no grammar can decode");
        }
        if (!rules.containsKey(refName) && !refsBeingResolved.contains(ref)) {
            Object target = root;
            if (!fragment.isEmpty()) {
                if (!fragment.startsWith("/")) {
                    throw new UnsupportedSchemaException(
                            at, "$ref", "anchor references ('" + ref + "') are not supported");
                }
                for (String token : fragment.substring(1).split("/", -1)) {
                    String key = token.replace("~1", "/").replace("~0", "~");
                    if (target instanceof Map<?, ?> m && m.containsKey(key)) {
                        target = m.get(key);
                    } else if (target instanceof List<?> l && key.matches("\\d+") && Integer.parseInt(key) < l.size()) {
                        target = l.get(Integer.parseInt(key));
                    } else {
                        throw new InvalidSchemaException(at, "unresolved $ref '" + ref + "'");
                    }
                }
            }
            refsBeingResolved.add(ref);
            leftmostRefs.add(ref);
            try {
                refName = visit(target, refName, fragment);
            } finally {
                refsBeingResolved.remove(ref);
                leftmostRefs.remove(ref);
            }
        }
        return refName;
    }

    @SuppressWarnings("unchecked")
    private String object(Map<String, Object> schema, String name, String ruleName, String at) {
        Object props = schema.getOrDefault("properties", Map.of());
        if (!(props instanceof Map<?, ?>)) {
            throw new InvalidSchemaException(at + "/properties", "properties must be an object");
        }
        Map<String, Object> properties = new LinkedHashMap<>((Map<String, Object>) props);
        Set<String> required = new HashSet<>();
        List<Object> req = schema.containsKey("required") ? list(schema.get("required"), at + "/required") : List.of();
        for (int i = 0; i < req.size(); i++) {
            if (!(req.get(i) instanceof String r)) {
                throw new InvalidSchemaException(at + "/required/" + i, "required must list property names (strings)");
            }
            required.add(r);
            // A required property the schema does not describe may hold any value.
            properties.putIfAbsent(r, Map.of());
        }
        Object additional = schema.get("additionalProperties");
        if (additional != null && !(additional instanceof Boolean) && !(additional instanceof Map<?, ?>)) {
            throw new InvalidSchemaException(
                    at + "/additionalProperties", "additionalProperties must be a boolean or a schema");
        }
        if (properties.isEmpty()
                && (Boolean.TRUE.equals(additional)
                        || (additional == null && "object".equals(schema.get("type")))
                        || (additional instanceof Map<?, ?> m && m.isEmpty()))) {
            return addRule(ruleName, addPrimitive("object", "object"));
        }
        String sub = name.isEmpty() ? "" : name + "-";
        List<String> requiredProps = new ArrayList<>();
        List<String> optionalProps = new ArrayList<>();
        Map<String, String> kvRules = new HashMap<>();
        for (var e : properties.entrySet()) {
            String prop = e.getKey();
            String valueRule = visit(e.getValue(), sub + prop, at + "/properties/" + escape(prop));
            kvRules.put(
                    prop, addRule(sub + prop + "-kv", Gbnf.literal(json(prop)) + " space \":\" space " + valueRule));
            (required.contains(prop) ? requiredProps : optionalProps).add(prop);
        }
        if (additional != null && !Boolean.FALSE.equals(additional)) {
            String subName = sub + "additional";
            String valueRule = additional instanceof Map<?, ?> m && !m.isEmpty()
                    ? visit(additional, subName + "-value", at + "/additionalProperties")
                    : addPrimitive("value", "value");
            for (String prop : properties.keySet()) {
                int length = prop.codePointCount(0, prop.length());
                if (length > MAX_EXCLUDED_NAME) {
                    throw new UnsupportedSchemaException(
                            at + "/additionalProperties",
                            "additionalProperties",
                            "additional properties next to a property name of " + length + " characters (a grammar"
                                    + " can tell other names from names of at most " + MAX_EXCLUDED_NAME + ")");
                }
            }
            String keyRule = properties.isEmpty()
                    ? addPrimitive("string", "string")
                    : addRule(subName + "-k", notStrings(new ArrayList<>(properties.keySet())));
            kvRules.put("*", addRule(subName + "-kv", keyRule + " \":\" space " + valueRule));
            optionalProps.add("*");
        }
        if (requiredProps.isEmpty() && optionalProps.isEmpty()) {
            return addRule(ruleName, "\"{\" space \"}\"");
        }
        StringBuilder rule = new StringBuilder("\"{\" space ");
        for (int i = 0; i < requiredProps.size(); i++) {
            if (i > 0) {
                rule.append(" \",\" space ");
            }
            rule.append(kvRules.get(requiredProps.get(i)));
        }
        if (!optionalProps.isEmpty()) {
            rule.append(" (");
            if (!requiredProps.isEmpty()) {
                rule.append(" \",\" space ( ");
            }
            for (int i = 0; i < optionalProps.size(); i++) {
                if (i > 0) {
                    rule.append(" | ");
                }
                rule.append(recursiveRefs(optionalProps.subList(i, optionalProps.size()), false, kvRules, sub));
            }
            if (!requiredProps.isEmpty()) {
                rule.append(" )");
            }
            rule.append(" )?");
        }
        rule.append(" space \"}\"");
        return addRule(ruleName, rule.toString());
    }

    /** Optional properties in order, each present or not (llama.cpp's get_recursive_refs). */
    private String recursiveRefs(List<String> ks, boolean firstIsOptional, Map<String, String> kvRules, String sub) {
        if (ks.isEmpty()) {
            return "";
        }
        String k = ks.get(0);
        String kv = kvRules.get(k);
        String commaRef = "( \",\" space " + kv + " )";
        String res = firstIsOptional
                ? commaRef + (k.equals("*") ? "*" : "?")
                : kv + (k.equals("*") ? " " + commaRef + "*" : "");
        if (ks.size() > 1) {
            res += " " + addRule(sub + k + "-rest", recursiveRefs(ks.subList(1, ks.size()), true, kvRules, sub));
        }
        return res;
    }

    /** A JSON string that is none of {@code strings} (llama.cpp's _not_strings, over a trie). */
    private String notStrings(List<String> strings) {
        record Node(TreeMap<Integer, Node> children, boolean[] end) {}
        Node trie = new Node(new TreeMap<>(), new boolean[1]);
        for (String s : strings) {
            Node n = trie;
            for (int cp : s.codePoints().toArray()) {
                n = n.children.computeIfAbsent(cp, c -> new Node(new TreeMap<>(), new boolean[1]));
            }
            n.end[0] = true;
        }
        String charRule = addPrimitive("char", "char");
        StringBuilder out = new StringBuilder("[\"] ( ");
        class Walk {
            void visit(Node node) {
                StringBuilder rejects = new StringBuilder();
                boolean first = true;
                for (var e : node.children.entrySet()) {
                    String c = classChar(e.getKey());
                    rejects.append(c);
                    if (!first) {
                        out.append(" | ");
                    }
                    first = false;
                    out.append('[').append(c).append(']');
                    if (!e.getValue().children.isEmpty()) {
                        out.append(" (");
                        visit(e.getValue());
                        out.append(')');
                    } else {
                        out.append(' ').append(charRule).append('+');
                    }
                }
                if (!node.children.isEmpty()) {
                    out.append(" | [^\"")
                            .append(rejects)
                            .append("] ")
                            .append(charRule)
                            .append('*');
                }
            }
        }
        new Walk().visit(trie);
        out.append(" )");
        if (!trie.end[0]) {
            out.append('?');
        }
        out.append(" [\"]");
        return out.toString();
    }

    /** A code point inside a GBNF character class. */
    private static String classChar(int cp) {
        return switch (cp) {
            case '\\', ']', '-', '"', '[' -> "\\" + (char) cp;
            // llama.cpp's parse_char knows no "\^" (only the escapes above, hex ones and t, r, n), and a
            // class that starts with a bare '^' is negated.
            case '^' -> "\\x5E";
            case '\n' -> "\\n";
            case '\r' -> "\\r";
            case '\t' -> "\\t";
            default -> cp < 0x20 ? String.format("\\x%02X", cp) : new String(Character.toChars(cp));
        };
    }

    private String array(Map<String, Object> schema, String sub, String ruleName, String at) {
        Repetitions.Bounds bounds = Repetitions.bounds(schema, "minItems", "maxItems", at);
        int min = bounds.min(), max = bounds.max();
        Object prefix = schema.containsKey("prefixItems")
                ? schema.get("prefixItems")
                : schema.get("items") instanceof List<?> l ? l : null;
        if (prefix != null) {
            // A tuple: exactly its items (what llama.cpp generates; extra items are never needed).
            List<Object> items = list(prefix, at + (schema.containsKey("prefixItems") ? "/prefixItems" : "/items"));
            if (items.size() < min || items.size() > max) {
                throw new UnsupportedSchemaException(
                        at, "prefixItems", "a tuple whose length differs from minItems/maxItems");
            }
            StringBuilder rule = new StringBuilder("\"[\" space ");
            for (int i = 0; i < items.size(); i++) {
                if (i > 0) {
                    rule.append(" \",\" space ");
                }
                rule.append(visit(items.get(i), sub + "tuple-" + i, at + "/prefixItems/" + i));
            }
            rule.append(" space \"]\"");
            return addRule(ruleName, rule.toString());
        }
        Object items = schema.get("items");
        if (items == null && min == 0 && max == Integer.MAX_VALUE) {
            return visitPrimitive(ruleName, "array");
        }
        String itemRule = visit(items == null ? Map.of() : items, sub + "item", at + "/items");
        return addRule(ruleName, "\"[\" space " + Repetitions.of(itemRule, min, max, "\",\" space") + " space \"]\"");
    }

    private String string(Map<String, Object> schema, String ruleName, String at) {
        if (schema.containsKey("pattern")) {
            if (!(schema.get("pattern") instanceof String p)) {
                throw new InvalidSchemaException(at + "/pattern", "pattern must be a string");
            }
            if (schema.containsKey("format") || schema.containsKey("minLength") || schema.containsKey("maxLength")) {
                throw new UnsupportedSchemaException(
                        at + "/pattern", "pattern", "pattern together with format, minLength or maxLength");
            }
            return new RegexToGbnf(this, p, ruleName, at + "/pattern").rule();
        }
        if (schema.containsKey("format")) {
            if (!(schema.get("format") instanceof String f)) {
                throw new InvalidSchemaException(at + "/format", "format must be a string");
            }
            String primitive = FORMATS.get(f);
            if (primitive == null) {
                throw new UnsupportedSchemaException(
                        at + "/format",
                        "format: " + f,
                        "supported formats are " + String.join(", ", new TreeMap<>(FORMATS).keySet()));
            }
            if (schema.containsKey("minLength") || schema.containsKey("maxLength")) {
                throw new UnsupportedSchemaException(
                        at + "/format", "format", "format together with minLength or maxLength");
            }
            return primitive.equals("uuid")
                    ? visitPrimitive(ruleName, "uuid")
                    : addRule(ruleName, addPrimitive(primitive, primitive));
        }
        Repetitions.Bounds bounds = Repetitions.bounds(schema, "minLength", "maxLength", at);
        int min = bounds.min(), max = bounds.max();
        if (min > 0 || max != Integer.MAX_VALUE) {
            String charRule = addPrimitive("char", "char");
            return addRule(ruleName, "\"\\\"\" " + Repetitions.of(charRule, min, max, "") + " \"\\\"\"");
        }
        return visitPrimitive(ruleName, "string");
    }

    // ---------------------------------------------------------------- helpers

    private static List<Object> list(Object value, String at) {
        if (!(value instanceof List<?> l)) {
            throw new InvalidSchemaException(at, "must be an array");
        }
        @SuppressWarnings("unchecked")
        List<Object> out = (List<Object>) l;
        return out;
    }

    /** A JSON Pointer token (RFC 6901). */
    static String escape(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }
}
