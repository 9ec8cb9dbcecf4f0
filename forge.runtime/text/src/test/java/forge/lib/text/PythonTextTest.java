package forge.lib.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Expected values are what CPython 3's {@code str} methods return for the same text. */
class PythonTextTest {

    @Test
    void whitespaceIsPythonsNotJavas() {
        // [c for c in range(0x3001) if chr(c).isspace()]
        List<Integer> python = List.of(
                9, 10, 11, 12, 13, 28, 29, 30, 31, 32, 133, 160, 5760, 8192, 8193, 8194, 8195, 8196, 8197, 8198, 8199,
                8200, 8201, 8202, 8232, 8233, 8239, 8287, 12288);
        List<Integer> ours = new ArrayList<>();
        for (char c = 0; c <= 0x3000; c++) {
            if (PythonText.isSpace(c)) {
                ours.add((int) c);
            }
        }
        assertEquals(python, ours);
        assertTrue(PythonText.isSpace(" \u00a0\t"));
        assertFalse(PythonText.isSpace(""));
        assertFalse(PythonText.isSpace(" x"));
    }

    @Test
    void stripFamily() {
        assertEquals("x\u200b", PythonText.strip(" \u00a0\u202f\u0085x\u200b"), "U+200B is not whitespace to Python");
        assertEquals("hi \n", PythonText.lstrip("\u00a0 hi \n"));
        assertEquals("\u00a0 hi", PythonText.rstrip("\u00a0 hi \n"));
        assertEquals("hi", PythonText.strip("\n\nhi\n", "\n"));
        assertEquals("hi\n", PythonText.lstrip("\n\nhi\n", "\n"));
        assertEquals("\n\nhi", PythonText.rstrip("\n\nhi\n", "\n"));
        assertEquals("bcb", PythonText.strip("abcba", "ac"));
        assertEquals("", PythonText.strip("   "));
    }

    @Test
    void splitOnASeparatorOrOnRunsOfWhitespace() {
        assertEquals(List.of("a", "b c "), PythonText.split("  a  b c ", null, 1));
        assertEquals(List.of("a", "b"), PythonText.split(" a b ", null, -1));
        assertEquals(List.of(), PythonText.split("   ", null, -1));
        assertEquals(List.of("a", "b", ",c"), PythonText.split("a,b,,c", ",", 2));
        assertEquals(List.of("", "x", ""), PythonText.split("</think>x</think>", "</think>", -1));
        assertEquals(List.of("abc"), PythonText.split("abc", ",", 0));
        assertThrows(IllegalArgumentException.class, () -> PythonText.split("a", "", -1));
    }

    @Test
    void rsplitCountsFromTheEnd() {
        assertEquals(List.of("a,b", "c"), PythonText.rsplit("a,b,c", ",", 1));
        assertEquals(List.of("a", "b", "c"), PythonText.rsplit("a,b,c", ",", -1));
        assertEquals(List.of("", "b"), PythonText.rsplit("ab", "a", 5));
        assertThrows(IllegalArgumentException.class, () -> PythonText.rsplit("a", "", 1));
        assertEquals(List.of("  a b", "c"), PythonText.rsplit("  a b c  ", null, 1));
        assertEquals(List.of("  a b c"), PythonText.rsplit("  a b c  ", null, 0));
        assertEquals(List.of(), PythonText.rsplit("   ", null, 1));
        assertEquals(List.of("a", "b"), PythonText.rsplit("a b", null, 5));
    }

    @Test
    void splitlinesKnowsEveryBoundaryPythonKnows() {
        assertEquals(List.of("a", "b", "c", "d", "e", "f"), PythonText.splitlines("a\r\nb\rc\u000bd\u001ce\u2028f\n"));
        assertEquals(List.of("", "x"), PythonText.splitlines("\nx"));
        assertEquals(List.of(), PythonText.splitlines(""));
    }

    @Test
    void replaceCountCapitalizeTitle() {
        assertEquals("a-bXc", PythonText.replace("aXbXc", "X", "-", 1));
        assertEquals("a-b-c", PythonText.replace("aXbXc", "X", "-", -1));
        assertEquals("aXbXc", PythonText.replace("aXbXc", "X", "-", 0));
        assertEquals(2, PythonText.count("aaaa", "aa"));
        assertEquals(3, PythonText.count("ab", ""));
        assertEquals("École", PythonText.capitalize("éCOLE"));
        assertEquals(
                "\ud801\udc00bc",
                PythonText.capitalize("\ud801\udc28BC"),
                "Deseret: the first code point, not the first UTF-16 unit");
        assertEquals("", PythonText.capitalize(""));
        assertEquals("It'S A Test-X", PythonText.title("it's a TEST-x"));
        assertTrue(PythonText.isDigit("0123"));
        assertFalse(PythonText.isDigit(""));
        assertFalse(PythonText.isDigit("1.5"));
    }
}
