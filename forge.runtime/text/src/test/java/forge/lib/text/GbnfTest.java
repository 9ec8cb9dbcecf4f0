package forge.lib.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

class GbnfTest {

    /**
     * What llama.cpp's grammar parser makes of a string literal: {@code parse_sequence} reads
     * characters up to the closing quote with {@code parse_char} (src/llama-grammar.cpp):
     * hex escapes ({@code \x} and its 4- and 8-digit kin), {@code \t \r \n}, and {@code \\ \" \[ \] \-}
     * for themselves; any other character stands for itself.
     */
    private static String llamaCppReads(String literal) {
        assertEquals('"', literal.charAt(0));
        StringBuilder out = new StringBuilder();
        int pos = 1;
        while (literal.charAt(pos) != '"') {
            char c = literal.charAt(pos);
            if (c != '\\') {
                out.append(c);
                pos++;
                continue;
            }
            char e = literal.charAt(pos + 1);
            switch (e) {
                case 'x', 'u', 'U' -> {
                    int n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                    out.appendCodePoint(Integer.parseInt(literal.substring(pos + 2, pos + 2 + n), 16));
                    pos += 2 + n;
                    continue;
                }
                case 't' -> out.append('\t');
                case 'r' -> out.append('\r');
                case 'n' -> out.append('\n');
                case '\\', '"', '[', ']', '-' -> out.append(e);
                default -> throw new AssertionError("unknown escape at " + literal.substring(pos));
            }
            pos += 2;
        }
        assertEquals(literal.length() - 1, pos, "the literal ends at its closing quote");
        return out.toString();
    }

    @Test
    void quotesAndEscapesWhatWouldEndTheLiteralOrAnEscape() {
        assertEquals("\"<tool_call>\\n{\\\"name\\\": \"", Gbnf.literal("<tool_call>\n{\"name\": "));
        assertEquals("\"a\\\\b\"", Gbnf.literal("a\\b"));
        assertEquals("\"\"", Gbnf.literal(""));
    }

    /** Both spellings of a tab parse alike in llama.cpp; the escaped one keeps rules printable, as CR and LF already were. */
    @Test
    void crLfAndTabAreWrittenAsEscapesSoEveryRuleStaysOnePrintableLine() {
        assertEquals("\"a\\tb\\r\\nc\"", Gbnf.literal("a\tb\r\nc"));
        assertEquals("a\tb", llamaCppReads("\"a\tb\""), "a raw tab inside quotes reads as a tab too");
        String l = Gbnf.literal("x\t\r\ny");
        assertFalse(l.chars().anyMatch(c -> c < 0x20), l);
    }

    @Test
    void llamaCppReadsBackExactlyTheText() {
        for (String s : new String[] {
            "<tool_call>\n{\"name\": ",
            "tab\there",
            "back\\slash \\n not a newline",
            "quote\"",
            "[]-^$.*+?()|{}",
            "é 😀 <|\"|>",
            "\r\n\t\"\\",
            "#not a comment",
            "::= root"
        }) {
            assertEquals(s, llamaCppReads(Gbnf.literal(s)), s);
        }
        for (char c = 1; c < 0x80; c++) {
            String s = "a" + c + "b";
            assertEquals(s, llamaCppReads(Gbnf.literal(s)), "character " + (int) c);
        }
    }
}
