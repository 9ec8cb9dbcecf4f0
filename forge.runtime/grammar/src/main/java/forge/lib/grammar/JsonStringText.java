package forge.lib.grammar;

import forge.lib.text.Gbnf;
import forge.lib.text.PythonJson;
import java.util.ArrayList;
import java.util.List;

/**
 * GBNF rules of plain text rewritten to match the same text as it stands inside a JSON string:
 * every terminal (literal, class, {@code .}) becomes its JSON-escaped spelling, so a grammar of a
 * tool's plain-text input can constrain the string value of the JSON arguments a chat template
 * writes ({@code {"input": "*** Begin Patch\n..."}}), where a newline is the two characters
 * {@code \n}.
 *
 * <p>One spelling per character: {@code \"}, {@code \\}, {@code \n}, {@code \r}, {@code \t} and,
 * in literals, {@code \b}, {@code \f} and <code>&#92;u00XX</code> for other control characters; everything
 * else as itself. A class or {@code .} admits of the control characters only tab, newline and
 * carriage return (escaped), so what a model writes there stays printable: a subset of the
 * grammar's language, never more.
 */
final class JsonStringText {

    /** The characters JSON must escape in a string: controls, the quote and the backslash. */
    private static final int[][] UNSAFE = {{0x00, 0x1F}, {'"', '"'}, {'\\', '\\'}};
    /** The unsafe characters a class may stand for, with their escapes. */
    private static final int[] ESCAPABLE = {'"', '\\', '\n', '\r', '\t'};

    private JsonStringText() {}

    /** One rule body (GBNF, without {@code name ::=}) rewritten; rule references stay as they are. */
    static String encode(String body) {
        StringBuilder out = new StringBuilder(body.length() * 2);
        int i = 0;
        while (i < body.length()) {
            char c = body.charAt(i);
            if (c == '"') {
                StringBuilder text = new StringBuilder();
                i++;
                while (body.charAt(i) != '"') {
                    i = character(body, i, text);
                }
                i++;
                out.append(Gbnf.literal(escape(text.toString())));
            } else if (c == '[') {
                i++;
                boolean negated = body.charAt(i) == '^';
                if (negated) {
                    i++;
                }
                List<int[]> ranges = new ArrayList<>();
                while (body.charAt(i) != ']') {
                    StringBuilder ch = new StringBuilder();
                    i = character(body, i, ch);
                    int lo = ch.codePointAt(0);
                    int hi = lo;
                    if (body.charAt(i) == '-' && body.charAt(i + 1) != ']') {
                        StringBuilder end = new StringBuilder();
                        i = character(body, i + 1, end);
                        hi = end.codePointAt(0);
                    }
                    ranges.add(new int[] {lo, hi});
                }
                i++;
                out.append(charClass(ranges, negated));
            } else if (c == '.') {
                i++;
                out.append(charClass(List.of(), true));
            } else if (c == '<') {
                throw new IllegalArgumentException("token references cannot be encoded: " + body);
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    /** How many hex digits follow the escape letter {@code e} in a GBNF or Lark literal ({@code \\x41}, {@code \\u00e9}, {@code \\U0001F600}); 0 for other escapes. */
    static int hexDigits(char e) {
        return switch (e) {
            case 'x' -> 2;
            case 'u' -> 4;
            case 'U' -> 8;
            default -> 0;
        };
    }

    /** Reads one (maybe escaped) character of a literal or class at {@code i} into {@code to}; returns the next index. */
    private static int character(String s, int i, StringBuilder to) {
        if (s.charAt(i) != '\\') {
            int cp = s.codePointAt(i);
            to.appendCodePoint(cp);
            return i + Character.charCount(cp);
        }
        char e = s.charAt(i + 1);
        int hex = hexDigits(e);
        if (hex > 0) {
            to.appendCodePoint(Integer.parseInt(s.substring(i + 2, i + 2 + hex), 16));
            return i + 2 + hex;
        }
        to.append(
                switch (e) {
                    case 'n' -> '\n';
                    case 'r' -> '\r';
                    case 't' -> '\t';
                    default -> e; // \\ \" \[ \] \-
                });
        return i + 2;
    }

    /** {@code text} as JSON writes it inside a string: the toolkit's JSON string literal, without its quotes. */
    static String escape(String text) {
        String quoted = PythonJson.quote(text);
        return quoted.substring(1, quoted.length() - 1);
    }

    /** A class as alternatives: its JSON-safe characters as one class, then each escapable character it admits. */
    private static String charClass(List<int[]> ranges, boolean negated) {
        List<String> alternatives = new ArrayList<>();
        StringBuilder cls = new StringBuilder("[");
        if (negated) {
            cls.append('^');
            ranges.forEach(r -> appendRange(cls, r[0], r[1]));
            for (int[] u : UNSAFE) {
                appendRange(cls, u[0], u[1]);
            }
            alternatives.add(cls.append(']').toString());
        } else {
            boolean any = false;
            for (int[] r : ranges) {
                for (int[] safe : withoutUnsafe(r[0], r[1])) {
                    appendRange(cls, safe[0], safe[1]);
                    any = true;
                }
            }
            if (any) {
                alternatives.add(cls.append(']').toString());
            }
        }
        for (int cp : ESCAPABLE) {
            boolean in = ranges.stream().anyMatch(r -> r[0] <= cp && cp <= r[1]);
            if (in != negated) {
                alternatives.add(Gbnf.literal(escape(Character.toString(cp))));
            }
        }
        if (alternatives.isEmpty()) {
            return "[^\\x00-\\U0010FFFF]"; // a class of control characters alone: nothing JSON text may hold raw
        }
        return alternatives.size() == 1 ? alternatives.getFirst() : "(" + String.join(" | ", alternatives) + ")";
    }

    /** The parts of {@code lo..hi} outside {@link #UNSAFE}. */
    private static List<int[]> withoutUnsafe(int lo, int hi) {
        List<int[]> parts = new ArrayList<>();
        parts.add(new int[] {lo, hi});
        for (int[] u : UNSAFE) {
            List<int[]> next = new ArrayList<>();
            for (int[] p : parts) {
                if (p[1] < u[0] || p[0] > u[1]) {
                    next.add(p);
                    continue;
                }
                if (p[0] < u[0]) {
                    next.add(new int[] {p[0], u[0] - 1});
                }
                if (p[1] > u[1]) {
                    next.add(new int[] {u[1] + 1, p[1]});
                }
            }
            parts = next;
        }
        return parts;
    }

    private static void appendRange(StringBuilder cls, int lo, int hi) {
        appendClassChar(cls, lo);
        if (hi != lo) {
            cls.append('-');
            appendClassChar(cls, hi);
        }
    }

    /** Letters and digits as they are, every other character as a hex escape: nothing in a class to misread. */
    static void appendClassChar(StringBuilder cls, int cp) {
        if (cp < 0x80 && Character.isLetterOrDigit(cp)) {
            cls.append((char) cp);
        } else if (cp < 0x100) {
            cls.append(String.format("\\x%02X", cp));
        } else if (cp < 0x10000) {
            cls.append(String.format("\\u%04X", cp));
        } else {
            cls.append(String.format("\\U%08X", cp));
        }
    }
}
