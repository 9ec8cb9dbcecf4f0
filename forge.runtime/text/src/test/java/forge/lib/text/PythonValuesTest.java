package forge.lib.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Expected texts are what CPython 3 prints for the same values. */
class PythonValuesTest {

    private static final PythonValues.Tuple PAIR = new PythonValues.Tuple(List.of(1L, 2L));

    @Test
    void strOfContainersIsTheirRepr() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(
                "a",
                Arrays.asList(
                        true,
                        PythonJson.NULL,
                        1e-5,
                        Double.NaN,
                        new PythonValues.Tuple(List.of(1L)),
                        PAIR,
                        new PythonValues.Tuple(List.of())));
        m.put("b", null);
        assertEquals("{'a': [True, None, 1e-05, nan, (1,), (1, 2), ()], 'b': None}", PythonValues.str(m));
        assertEquals("['x', 'y']", PythonValues.str(new Object[] {"x", "y"}));
        assertEquals("[3]", PythonValues.str(Set.of(3)));
    }

    @Test
    void strOfScalars() {
        assertEquals("None", PythonValues.str(null));
        assertEquals("None", PythonValues.str(PythonJson.NULL));
        assertEquals("True", PythonValues.str(true));
        assertEquals("2.0", PythonValues.str(2.0));
        assertEquals("2", PythonValues.str(2L));
        assertEquals("12345678901234567890", PythonValues.str(new BigInteger("12345678901234567890")));
        assertEquals("2.5", PythonValues.str(new BigDecimal("2.50")));
        assertEquals("it's", PythonValues.str("it's"));
        assertEquals("c", PythonValues.str('c'));
    }

    @Test
    void reprQuotesStringsAsPythonChoosesAndEscapes() {
        assertEquals("\"it's\"", PythonValues.repr("it's"));
        assertEquals("'say \"hi\"'", PythonValues.repr("say \"hi\""));
        assertEquals("'both \\' \"'", PythonValues.repr("both ' \""));
        assertEquals("'a\\nb\\tc\\r'", PythonValues.repr("a\nb\tc\r"));
        assertEquals("'\\\\'", PythonValues.repr("\\"));
        assertEquals("\"it's \\\\\"", PythonValues.repr("it's \\"));
        // Not printable: controls, DEL, C1 controls, no-break space, format and private-use characters, unassigned code
        // points.
        assertEquals(
                "'\\x01\\x7f\\x85\\xa0\\u200b\\ue000\\U0010ffff😀é'",
                PythonValues.repr("\u0001\u007f\u0085\u00a0\u200b\ue000\udbff\udfff😀é"));
    }

    @Test
    void floatsPrintAsRepr() {
        assertEquals("nan", PythonValues.floatRepr(Double.NaN));
        assertEquals("inf", PythonValues.floatRepr(Double.POSITIVE_INFINITY));
        assertEquals("-inf", PythonValues.floatRepr(Double.NEGATIVE_INFINITY));
        assertEquals("1e-05", PythonValues.floatRepr(1e-5));
        assertEquals("0.0001", PythonValues.floatRepr(1e-4));
        assertEquals("1e+16", PythonValues.floatRepr(1e16));
        assertEquals("1234567890123456.0", PythonValues.floatRepr(1234567890123456.0));
        assertEquals("-0.0", PythonValues.floatRepr(-0.0));
        assertEquals("0.1", PythonValues.floatRepr(0.1));
        assertEquals("[2.0, 1e-05]", PythonValues.repr(List.of(2.0f, 1e-5)));
    }

    @Test
    void truthIsPythons() {
        for (Object falsy : Arrays.asList(
                null,
                PythonJson.NULL,
                false,
                "",
                0L,
                0,
                0.0,
                -0.0,
                BigDecimal.ZERO,
                BigInteger.ZERO,
                List.of(),
                Map.of(),
                Set.of(),
                new Object[0],
                new PythonValues.Tuple(List.of()))) {
            assertFalse(PythonValues.truthy(falsy), String.valueOf(falsy));
        }
        for (Object truthy : Arrays.asList(
                true,
                "False",
                "0",
                1L,
                -1,
                0.5,
                Double.NaN,
                new BigDecimal("0.01"),
                List.of(0),
                Map.of("a", false),
                new Object[] {null},
                new PythonValues.Tuple(Arrays.asList((Object) null)),
                'x',
                new Object())) {
            assertTrue(PythonValues.truthy(truthy), String.valueOf(truthy));
        }
    }

    @Test
    void typeNamesArePythons() {
        assertEquals(
                List.of(
                        "NoneType",
                        "NoneType",
                        "bool",
                        "str",
                        "str",
                        "int",
                        "int",
                        "float",
                        "float",
                        "float",
                        "dict",
                        "list",
                        "list",
                        "list",
                        "tuple"),
                Arrays.asList(
                                null,
                                PythonJson.NULL,
                                true,
                                "s",
                                'c',
                                1L,
                                BigInteger.ONE,
                                1.0,
                                1.0f,
                                BigDecimal.ONE,
                                Map.of(),
                                List.of(),
                                Set.of(),
                                new Object[0],
                                PAIR)
                        .stream()
                        .map(PythonValues::typeName)
                        .toList());
    }

    /** An engine's own values: a safe string, its own None, and an object that prints as itself. */
    private record Safe(String text) {}

    private static final Object NONE = new Object();

    private static final PythonValues.View VIEW = PythonValues.view(v -> switch (v) {
        case null -> new PythonValues.Opaque("Undefined", "", "Undefined", false);
        case Safe s -> s.text();
        default -> v == NONE ? PythonJson.NULL : v;
    });

    @Test
    void aViewSeesAnEnginesValuesAtEveryDepth() {
        assertEquals("", VIEW.str(null));
        assertEquals("Undefined", VIEW.repr(null));
        assertEquals("[Undefined, None, 'x']", VIEW.str(Arrays.asList(null, NONE, new Safe("x"))));
        assertEquals("{'k': 'v'}", VIEW.str(Map.of(new Safe("k"), new Safe("v"))));
        assertEquals("x", VIEW.str(new Safe("x")));
        assertFalse(VIEW.truthy(null));
        assertFalse(VIEW.truthy(NONE));
        assertFalse(VIEW.truthy(new Safe("")));
        assertTrue(VIEW.truthy(new Safe("a")));
        assertEquals("Undefined", VIEW.typeName(null));
        assertEquals("str", VIEW.typeName(new Safe("a")));
        // The plain view is unchanged by it: null is None there.
        assertEquals("None", PythonValues.str(null));
        assertEquals("Safe", PythonValues.typeName(new Safe("a")));
    }
}
