package forge.lib.text;

/**
 * GBNF text as llama.cpp's grammar parser ({@code src/llama-grammar.cpp}) reads it: the one
 * string-literal escaper of tool-call grammars and of JSON-Schema grammars.
 *
 * <p>A literal escapes {@code "} and {@code \} (which would end it or start an escape) and
 * writes CR, LF and tab as {@code \r}, {@code \n} and {@code \t}. llama.cpp's
 * {@code parse_char} decodes those three escapes, and it would also take the raw characters
 * inside quotes ({@code decode_utf8}), so both spellings match the same text; the escaped one is
 * chosen because it keeps every rule on one printable line (a raw CR or LF would split a rule in
 * a log or a test's message, a raw tab is invisible) and it is the spelling
 * {@code common/json-schema-to-grammar.cpp}'s {@code format_literal} uses for CR and LF. Other
 * characters, non-ASCII included, stand as they are, as there.
 *
 * {@snippet :
 * String rule = "tc-open ::= " + Gbnf.literal("<tool_call>\n") + "\n";   // tc-open ::= "<tool_call>\n"
 * }
 */
public final class Gbnf {

    private Gbnf() {}

    /** {@code text} as a GBNF string literal, quoted and escaped as llama.cpp's grammar parser reads it. */
    public static String literal(String text) {
        // the backslash first, so that the escapes added after it are not escaped again
        return '"'
                + text.replace("\\", "\\\\")
                        .replace("\"", "\\\"")
                        .replace("\n", "\\n")
                        .replace("\r", "\\r")
                        .replace("\t", "\\t")
                + '"';
    }
}
