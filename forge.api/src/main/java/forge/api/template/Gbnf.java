package forge.api.template;

/**
 * Helpers for the GBNF text that {@link ChatTemplate#toolCallGrammar} returns.
 *
 * {@snippet :
 * String rule = "tc-open ::= " + Gbnf.literal("<tool_call>\n") + "\n";   // tc-open ::= "<tool_call>\n"
 * }
 */
public final class Gbnf {

    private Gbnf() {
    }

    /** {@code text} as a GBNF string literal, quoted and escaped as llama.cpp's grammar parser reads it. */
    public static String literal(String text) {
        StringBuilder sb = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> sb.append(c);
            }
        }
        return sb.append('"').toString();
    }
}
