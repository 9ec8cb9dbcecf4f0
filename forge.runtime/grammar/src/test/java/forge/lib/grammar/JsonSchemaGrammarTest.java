package forge.lib.grammar;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonSchemaGrammarTest {

    private static String convert(Map<String, Object> schema) {
        String g = JsonSchemaGrammar.convert(schema);
        GbnfGrammar.check(g); // every conversion is a grammar llama.cpp accepts
        return g;
    }

    @Test
    void followsLlamaCppForAnObject() {
        String g = convert(Map.of(
                "type", "object", "properties", Map.of("a", Map.of("type", "integer")), "required", List.of("a")));
        assertTrue(g.contains("root ::= \"{\" space a-kv space \"}\"\n"), g);
        assertTrue(g.contains("a-kv ::= \"\\\"a\\\"\" space \":\" space integer\n"), g);
        assertTrue(g.contains("space ::= | \" \" | \"\\n\"{1,2} [ \\t]{0,20}\n"), g);
    }

    /** const and enum values as llama.cpp's json_schema_to_grammar writes them: format_literal(value.dump()). */
    @Test
    void constAndEnumAreCompactJsonAsGbnfLiterals() {
        assertEquals(
                "root ::= \"2.0\"\nspace ::= | \" \" | \"\\n\"{1,2} [ \\t]{0,20}\n", convert(Map.of("const", 2.0)));
        assertTrue(convert(Map.of("const", Map.of("a", List.of(1, "x\ty"))))
                .startsWith("root ::= \"{\\\"a\\\":[1,\\\"x\\\\ty\\\"]}\"\n"));
        String e = convert(Map.of("enum", java.util.Arrays.asList("é\n", true, null, 1e-5)));
        assertTrue(e.startsWith("root ::= (\"\\\"é\\\\n\\\"\" | \"true\" | \"null\" | \"1e-05\")\n"), e);
    }

    /** Vectors from llama.cpp's tests/test-json-schema-to-grammar.cpp. */
    @Test
    void integerBoundsAsLlamaCppWritesThem() {
        assertTrue(
                convert(Map.of("type", "integer", "minimum", -123))
                        .startsWith(
                                "root ::= (\"-\" ([0-9] | ([1-8] [0-9] | [9] [0-9]) | \"1\" ([0-1] [0-9] | [2] [0-3])) | [0] | [1-9] [0-9]{0,15})\n"));
        assertTrue(
                convert(Map.of("type", "integer", "minimum", -123, "maximum", 42))
                        .startsWith(
                                "root ::= (\"-\" ([0-9] | ([1-8] [0-9] | [9] [0-9]) | \"1\" ([0-1] [0-9] | [2] [0-3])) | [0-9] | ([1-3] [0-9] | [4] [0-2]))\n"));
        assertTrue(
                convert(Map.of("type", "integer", "exclusiveMinimum", 0)).startsWith("root ::= ([1-9] [0-9]{0,15})"));
    }

    @Test
    void unsupportedFeaturesAreNamedWithTheirPointer() {
        UnsupportedSchemaException e = refusal(
                UnsupportedSchemaException.class,
                Map.of("type", "object", "properties", Map.of("x", Map.of("type", "array", "uniqueItems", true))));
        assertEquals("uniqueItems", e.feature());
        assertEquals("/properties/x/uniqueItems", e.pointer());
        for (Map<String, Object> s : List.<Map<String, Object>>of(
                Map.of("not", Map.of()),
                Map.of("type", "string", "format", "email"),
                Map.of("type", "number", "minimum", 0.5),
                Map.of("type", "string", "pattern", "abc"),
                Map.of("type", "string", "pattern", "^(?=a)b$"),
                Map.of("$ref", "https://example.com/s.json"),
                Map.of("allOf", List.of(Map.of(), Map.of())))) {
            refusal(UnsupportedSchemaException.class, s);
        }
    }

    @Test
    void invalidSchemasSayWhere() {
        InvalidSchemaException e =
                refusal(InvalidSchemaException.class, Map.of("properties", Map.of("a/b", Map.of("type", "strin"))));
        assertEquals("/properties/a~1b/type", e.pointer());
        assertEquals(
                "/properties/p/$ref",
                refusal(InvalidSchemaException.class, Map.of("properties", Map.of("p", Map.of("$ref", "#/$defs/none"))))
                        .pointer());
        assertEquals(
                "/minItems",
                refusal(InvalidSchemaException.class, Map.of("type", "array", "minItems", -1))
                        .pointer());
    }

    @Test
    void severalSchemasKeepTheirRefsApart() {
        JsonSchemaGrammar b = JsonSchemaGrammar.builder();
        Map<String, Object> x0 = Map.of(
                "type", "object", "properties", Map.of("n", Map.of("type", "integer")), "required", List.of("n"));
        Map<String, Object> x1 = Map.of(
                "type", "object", "properties", Map.of("n", Map.of("type", "boolean")), "required", List.of("n"));
        String a = b.addSchema("tool0-args", Map.of("$ref", "#/$defs/x", "$defs", Map.of("x", x0)));
        String c = b.addSchema("tool1-args", Map.of("$ref", "#/$defs/x", "$defs", Map.of("x", x1)));
        b.addRule("root", a + " | " + c);
        String g = b.build();
        GbnfGrammar.check(g);
        assertTrue(g.contains("tool0-args ::= tool0-args-ref-defs-x\n"), g);
        assertTrue(g.contains("tool0-args-ref-defs-x-n-kv ::= \"\\\"n\\\"\" space \":\" space integer\n"), g);
        assertTrue(g.contains("tool1-args-ref-defs-x-n-kv ::= \"\\\"n\\\"\" space \":\" space boolean\n"), g);
    }

    @Test
    void recursiveRefsTerminate() {
        String g = convert(Map.of(
                "$ref",
                "#/$defs/n",
                "$defs",
                Map.of(
                        "n",
                        Map.of(
                                "type",
                                "object",
                                "properties",
                                Map.of("kids", Map.of("type", "array", "items", Map.of("$ref", "#/$defs/n")))))));
        assertTrue(g.contains("ref-defs-n"), g);
    }

    @Test
    void patternsStayInsideTheJsonString() {
        String g = convert(Map.of("type", "string", "pattern", "^[^a]\\d.$"));
        assertTrue(g.contains("[^a\"\\\\\\x00-\\x1F\\x7F]"), g);
        refusal(UnsupportedSchemaException.class, Map.of("type", "string", "pattern", "^a\"b$"));
    }

    @Test
    void repetitionsPastLlamaCppsLimitAreRefusedNamingTheKeyword() {
        UnsupportedSchemaException e = refusal(
                UnsupportedSchemaException.class,
                Map.of("type", "array", "items", Map.of("type", "integer"), "minItems", 1_000_000));
        assertEquals("/minItems", e.pointer());
        assertTrue(e.getMessage().contains("over the limit of 2000"), e.getMessage());
        assertEquals(
                "/properties/s/maxLength",
                refusal(
                                UnsupportedSchemaException.class,
                                Map.of("properties", Map.of("s", Map.of("type", "string", "maxLength", 5000))))
                        .pointer());
        assertEquals(
                "/pattern",
                refusal(UnsupportedSchemaException.class, Map.of("type", "string", "pattern", "^a{1000000}$"))
                        .pointer());
        // At the limit, the grammar is one llama.cpp takes.
        GbnfGrammar.check(JsonSchemaGrammar.convert(Map.of("type", "array", "minItems", 2000, "maxItems", 2000)));
        GbnfGrammar.check(JsonSchemaGrammar.convert(Map.of("type", "string", "minLength", 10, "maxLength", 2000)));
    }

    /**
     * Found by JsonSchemaGrammarFuzzTest: {@code "maximum": 151e3080} reads as an infinite double,
     * which threw a NumberFormatException (a 500 for a tool's parameters); a count beyond a long was
     * read as what is left of it after wrapping.
     */
    @Test
    void numbersPastADoublesRangeAreRefusedAndHugeCountsStayHuge() {
        InvalidSchemaException e = refusal(
                InvalidSchemaException.class,
                Map.of("properties", Map.of("age", Map.of("type", "integer", "maximum", Double.POSITIVE_INFINITY))));
        assertEquals("/properties/age/maximum", e.pointer());
        assertTrue(e.getMessage().contains("finite"), e.getMessage());
        assertEquals(
                "/minLength",
                refusal(InvalidSchemaException.class, Map.of("type", "string", "minLength", Double.POSITIVE_INFINITY))
                        .pointer());
        // 2^64 + 1 is not 1 item
        assertEquals(
                "/maxItems",
                refusal(
                                UnsupportedSchemaException.class,
                                Map.of("type", "array", "maxItems", new java.math.BigInteger("18446744073709551617")))
                        .pointer());
        assertEquals(
                "/minItems",
                refusal(InvalidSchemaException.class, Map.of("type", "array", "minItems", 1.5))
                        .pointer());
        convert(Map.of("type", "array", "maxItems", 4.0));
    }

    /**
     * Found by JsonSchemaGrammarFuzzTest: {@code ^a{+000000}+$} made {@code "+"} with nothing before
     * it. Repeating what matches only the empty string is that string; repeating without bound what
     * may match it is a grammar llama.cpp refuses as left recursive, so it is refused here, by name.
     */
    @Test
    void patternsThatRepeatTheEmptyStringCollapseOrAreRefused() {
        for (String p :
                new String[] {"^a{0}+$", "^a{0}*b$", "^a{0}?$", "^(?:a{0}){3}$", "^(a?){2,5}$", "^(a|b?)?c$", "^$"}) {
            convert(Map.of("type", "string", "pattern", p));
        }
        for (String p : new String[] {"^(a*)*$", "^(a|)+$", "^(a?){2,}$", "^(b|c?d?)*$"}) {
            UnsupportedSchemaException e =
                    refusal(UnsupportedSchemaException.class, Map.of("type", "string", "pattern", p));
            assertTrue(e.getMessage().contains("left recursive"), e.getMessage());
        }
        UnsupportedSchemaException e =
                refusal(UnsupportedSchemaException.class, Map.of("type", "string", "pattern", "^a{+000000}+$"));
        assertTrue(e.getMessage().contains("invalid number in curly brackets"), e.getMessage());
    }

    /**
     * Found by JsonSchemaGrammarFuzzTest: next to additionalProperties, a property name of 200
     * characters made a grammar nested 200 deep, which the checker refuses; a much longer one would
     * have overflowed the converter's own stack.
     */
    @Test
    void additionalPropertiesNextToAVeryLongNameAreRefusedNamingTheLimit() {
        String longest = "n".repeat(JsonSchemaGrammar.MAX_EXCLUDED_NAME);
        convert(Map.of(
                "type",
                "object",
                "properties",
                Map.of(longest, Map.of(), "b", Map.of()),
                "additionalProperties",
                Map.of("type", "number")));
        for (String name : new String[] {longest + "n", "\uD83D\uDE00".repeat(500), "x".repeat(1_000_000)}) {
            UnsupportedSchemaException e = refusal(
                    UnsupportedSchemaException.class,
                    Map.of("type", "object", "properties", Map.of(name, Map.of()), "additionalProperties", true));
            assertEquals("/additionalProperties", e.pointer());
            assertTrue(e.getMessage().contains("at most " + JsonSchemaGrammar.MAX_EXCLUDED_NAME), e.getMessage());
        }
        // Found by JsonSchemaGrammarFuzzTest too: a '^' in a name was written "\^", an escape llama.cpp does not know.
        convert(Map.of(
                "type", "object", "properties", Map.of("a^b", Map.of(), "^", Map.of()), "additionalProperties", true));
        // without additional properties a long name is just a literal
        convert(Map.of("type", "object", "properties", Map.of("x".repeat(10_000), Map.of("type", "integer"))));
    }

    /**
     * Found by JsonSchemaGrammarFuzzTest: a {@code $ref} that reaches itself again before an object
     * or array opens made a left-recursive rule ({@code ref-defs-node ::= ref-defs-node}). Recursion
     * inside an object or array is fine.
     */
    @Test
    void aRefBackToItselfBeforeAnyTokenIsRefused() {
        List<Map<String, Object>> cycles = List.of(
                Map.of(
                        "$ref",
                        "#/$defs/node",
                        "$defs",
                        Map.of("node", Map.of("type", "object", "$ref", "#/$defs/node"))),
                Map.of("$ref", "#"),
                Map.of(
                        "$ref",
                        "#/$defs/a",
                        "$defs",
                        Map.of(
                                "a",
                                Map.of("anyOf", List.of(Map.of("type", "null"), Map.of("$ref", "#/$defs/b"))),
                                "b",
                                Map.of("allOf", List.of(Map.of("$ref", "#/$defs/a"))))),
                Map.of("$ref", "#/$defs/a", "$defs", Map.of("a", Map.of("nullable", true, "$ref", "#/$defs/a"))));
        for (Map<String, Object> schema : cycles) {
            InvalidSchemaException e = assertThrows(
                    InvalidSchemaException.class, () -> JsonSchemaGrammar.convert(schema), schema.toString());
            assertTrue(e.getMessage().contains("refers back to itself before anything is matched"), e.getMessage());
        }
        convert(Map.of(
                "$ref",
                "#/$defs/a",
                "$defs",
                Map.of("a", Map.of("type", "array", "items", Map.of("$ref", "#/$defs/a")))));
        convert(Map.of(
                "$ref",
                "#/$defs/a",
                "$defs",
                Map.of(
                        "a",
                        Map.of(
                                "anyOf",
                                List.of(
                                        Map.of("type", "null"),
                                        Map.of(
                                                "type",
                                                "object",
                                                "properties",
                                                Map.of("next", Map.of("$ref", "#/$defs/a")),
                                                "required",
                                                List.of("next")))))));
    }

    /** Found by JsonSchemaGrammarFuzzTest: {@code (.yz|+F)} repeated the '|' itself. */
    @Test
    void aQuantifierAfterAnAlternationBarRepeatsNothing() {
        for (String p : new String[] {"^(.yz|+F)$", "^a|*$", "^(|{2})$", "^+$"}) {
            InvalidSchemaException e = refusal(InvalidSchemaException.class, Map.of("type", "string", "pattern", p));
            assertTrue(e.getMessage().contains("nothing to repeat"), e.getMessage());
        }
    }

    /**
     * Found by JsonSchemaGrammarFuzzTest: {@code maxItems: 2000} alone made a grammar llama.cpp
     * refuses, and {@code maxItems: 1999} did as a tool's arguments, whose item rule sorts after it.
     */
    @Test
    void anArrayOfAtMostTheLimitMayBeEmpty() {
        for (int max : new int[] {1, 2, 1998, 1999, 2000}) {
            Map<String, Object> schema = Map.of("type", "array", "items", Map.of("type", "integer"), "maxItems", max);
            assertDoesNotThrow(() -> GbnfGrammar.check(JsonSchemaGrammar.convert(schema)), "maxItems " + max);
            JsonSchemaGrammar b = JsonSchemaGrammar.builder();
            b.addRule("root", b.addSchema("tool0-args", schema));
            assertDoesNotThrow(() -> GbnfGrammar.check(b.build()), "as a tool's arguments, maxItems " + max);
        }
        assertTrue(
                convert(Map.of("type", "array", "maxItems", 3))
                        .contains("root ::= \"[\" space (item (\",\" space item){0,2})? space \"]\""),
                "below the limit, llama.cpp's own spelling");
    }

    /** What {@link JsonSchemaGrammar#convert} throws for {@code schema}: an exception of {@code type}. */
    private static <E extends SchemaGrammarException> E refusal(Class<E> type, Map<String, Object> schema) {
        return assertThrows(type, () -> JsonSchemaGrammar.convert(schema), () -> String.valueOf(schema));
    }
}
