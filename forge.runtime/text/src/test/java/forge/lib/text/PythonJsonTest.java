package forge.lib.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.TemplateException;
import forge.api.template.ToolCall;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Expected texts are what CPython 3's {@code json.dumps} prints for the same values. */
class PythonJsonTest {

    /** A map in the order given (Map.of has none). */
    private static Map<Object, Object> dict(Object... kv) {
        Map<Object, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private static final Map<Object, Object> TREE =
            dict("a", List.of(1L, dict("b", PythonJson.NULL)), "c", "é😀", "d", List.of());

    @Test
    void dumpsWithPythonsSeparatorsAndNoAsciiEscapes() {
        assertEquals("{\"a\": [1, {\"b\": null}], \"c\": \"é😀\", \"d\": []}", PythonJson.dumps(TREE));
        assertEquals("{}", PythonJson.dumps(Map.of()));
        assertEquals("null", PythonJson.dumps(null));
        assertEquals("[true, false, \"x\"]", PythonJson.dumps(List.of(true, false, "x")));
    }

    @Test
    void indentPutsEachItemOnItsLineWithCommasOnly() {
        assertEquals("""
                {
                  "a": [
                    1,
                    {
                      "b": null
                    }
                  ],
                  "c": "é😀",
                  "d": []
                }""", PythonJson.dumps(TREE, 2));
        assertEquals("[\n1,\n[\n2,\n[]\n]\n]", PythonJson.dumps(List.of(1L, List.of(2L, List.of())), 0));
        assertEquals(
                "[\n--1,\n--{\n----\"a\": 2\n--}\n]",
                PythonJson.writer().indent("--").dumps(List.of(1L, Map.of("a", 2L))));
        assertThrows(IllegalArgumentException.class, () -> PythonJson.dumps(TREE, -1));
    }

    @Test
    void compactHasNoSpacesAtAll() {
        assertEquals("{\"a\":[1,{\"b\":null}],\"c\":\"é😀\",\"d\":[]}", PythonJson.compact(TREE));
        assertEquals("[1,{\"a\":2.0}]", PythonJson.writer().separators(",", ":").dumps(List.of(1, Map.of("a", 2.0))));
    }

    @Test
    void ensureAsciiEscapesEveryUtf16UnitPastTildeAndSortKeysOrdersItems() {
        assertEquals(
                "{\"a\": [1, {\"b\": null}], \"c\": \"\\u00e9\\ud83d\\ude00\\u007f\", \"d\": {}}",
                PythonJson.writer()
                        .ensureAscii(true)
                        .sortKeys(true)
                        .dumps(dict("d", Map.of(), "c", "é😀\u007f", "a", List.of(1, dict("b", null)))));
        assertEquals("\"\u007f\"", PythonJson.dumps("\u007f"), "without ensure_ascii DEL stands as it is");
    }

    @Test
    void floatsAreSpelledAsPythonsRepr() {
        assertEquals(
                "[1e-05, 1e+16, 0.0001, -0.0, 123456789.0, 1.5e+300, 0.1, NaN, Infinity, -Infinity, 2.0, 2.5]",
                PythonJson.dumps(Arrays.asList(
                        1e-5,
                        1e16,
                        0.0001,
                        -0.0,
                        123456789.0,
                        1.5e300,
                        0.1,
                        Double.NaN,
                        Double.POSITIVE_INFINITY,
                        Double.NEGATIVE_INFINITY,
                        2.0f,
                        new BigDecimal("2.50"))));
        assertEquals(
                "[1, 12345678901234567890, 7]",
                PythonJson.dumps(List.of(1, new BigInteger("12345678901234567890"), (short) 7)));
    }

    @Test
    void quoteEscapesAsPythonDoes() {
        assertEquals("\"\\u0001\\u001f\\b\\f\\n\\r\\t\\\"\\\\/\"", PythonJson.quote("\u0001\u001f\b\f\n\r\t\"\\/"));
        assertEquals("\"é\"", PythonJson.quote("é"));
    }

    @Test
    void nonStringKeysAreWrittenAsJsonSpellsThem() {
        assertEquals(
                "{\"1\": 1, \"1.5\": 2, \"true\": 3, \"null\": 4, \"1e-05\": 5}",
                PythonJson.dumps(dict(1L, 1L, 1.5, 2L, true, 3L, PythonJson.NULL, 4L, 1e-5, 5L)));
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> PythonJson.dumps(dict(List.of(1), 1)));
        assertEquals("keys must be str, int, float, bool or None, not list", e.getMessage());
    }

    @Test
    void collectionsArraysAndTuplesAreLists() {
        assertEquals(
                "[[1, 2], [\"a\"], [true], []]",
                PythonJson.dumps(List.of(
                        new LinkedHashSet<>(List.of(1, 2)),
                        new Object[] {"a"},
                        new PythonValues.Tuple(List.of(true)),
                        new PythonValues.Tuple(List.of()))));
        assertEquals("\"c\"", PythonJson.dumps('c'));
    }

    @Test
    void whatIsNotJsonIsRefusedAsPythonsTypeErrorWordsIt() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> PythonJson.dumps(List.of(new Object())));
        assertEquals("Object of type Object is not JSON serializable", e.getMessage());
        PythonValues.Opaque undefined = new PythonValues.Opaque("Undefined", "", "Undefined", false);
        e = assertThrows(IllegalArgumentException.class, () -> PythonJson.dumps(Map.of("a", undefined)));
        assertEquals("Object of type Undefined is not JSON serializable", e.getMessage());
    }

    /** An engine's own string type, for the view. */
    private record Safe(String text) {}

    @Test
    void aViewTurnsAnEnginesValuesIntoJsonAtEveryDepthKeysIncluded() {
        PythonJson.Writer w = PythonJson.writer().view(v -> v instanceof Safe s ? s.text() : v);
        assertEquals(
                "{\"k\": [\"v\", {\"x\": 1}]}", w.dumps(Map.of(new Safe("k"), List.of(new Safe("v"), Map.of("x", 1)))));
        // The view's choices do not leak into the default writer.
        assertThrows(IllegalArgumentException.class, () -> PythonJson.dumps(new Safe("v")));
    }

    @Test
    void writersAreImmutable() {
        PythonJson.Writer base = PythonJson.writer();
        base.indent(2).sortKeys(true).ensureAscii(true).separators(",", ":");
        assertEquals("{\"b\": \"é\", \"a\": 1}", base.dumps(dict("b", "é", "a", 1)));
        // Indented items are separated by "," unless separators are given, in whichever order.
        assertEquals("[\n1,\n2\n]", base.indent("").dumps(List.of(1, 2)));
        assertEquals("[\n1;\n2\n]", base.separators(";", "=").indent("").dumps(List.of(1, 2)));
        assertEquals("[\n1;\n2\n]", base.indent("").separators(";", "=").dumps(List.of(1, 2)));
    }

    @Test
    void parseReadsWhatDumpsWritesKeepingOrderAndNumberKinds() {
        Object tree = PythonJson.parse(
                " {\"z\": [1, -2.5e3, 123456789012345678901, true, null, \"\\u00e9\\n\"], \"a\": {}} ");
        assertEquals(
                "{\"z\": [1, -2500.0, 123456789012345678901, true, null, \"é\\n\"], \"a\": {}}",
                PythonJson.dumps(tree));
        List<?> z = (List<?>) ((Map<?, ?>) tree).get("z");
        assertInstanceOf(Long.class, z.get(0));
        assertInstanceOf(Double.class, z.get(1));
        assertInstanceOf(BigInteger.class, z.get(2));
        assertSame(PythonJson.NULL, z.get(4));
        assertEquals(List.of("z", "a"), List.copyOf(((Map<?, ?>) tree).keySet()));
    }

    @Test
    void parseNamesTheOffsetOfWhatIsWrong() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PythonJson.parse("{\"a\": }"))
                .getMessage()
                .contains("offset 6"));
        assertThrows(IllegalArgumentException.class, () -> PythonJson.parse("[1] x"));
        assertThrows(IllegalArgumentException.class, () -> PythonJson.parse("\"a\nb\""));
        assertThrows(IllegalArgumentException.class, () -> PythonJson.parse(""));
        // objects and arrays: their items, separated by commas, up to the closing bracket
        assertEquals(
                List.of(List.of(), Map.of(), List.of(Map.of("a", 1L))),
                PythonJson.parse(" [ [ ] , { } , [{ \"a\" : 1 }] ] "));
        assertEquals(
                "invalid JSON at offset 8: expected , or }",
                assertThrows(IllegalArgumentException.class, () -> PythonJson.parse("{\"a\": 1 ]"))
                        .getMessage());
        assertEquals(
                "invalid JSON at offset 3: expected , or ]",
                assertThrows(IllegalArgumentException.class, () -> PythonJson.parse("[1 }"))
                        .getMessage());
        assertEquals(
                "invalid JSON at offset 7: expected a key",
                assertThrows(IllegalArgumentException.class, () -> PythonJson.parse("{\"a\":1,}"))
                        .getMessage());
    }

    @Test
    void argumentsAreTheCallsJsonTreeAndBlankIsAnEmptyObject() {
        assertEquals(Map.of("city", "Paris"), PythonJson.arguments(new ToolCall("1", "f", "{\"city\":\"Paris\"}")));
        assertEquals(Map.of(), PythonJson.arguments(new ToolCall("1", "f", " ")));
        TemplateException e =
                assertThrows(TemplateException.class, () -> PythonJson.arguments(new ToolCall("1", "f", "{oops")));
        assertTrue(e.getMessage().startsWith("the arguments of tool call 'f' are not JSON"), e.getMessage());
    }
}
