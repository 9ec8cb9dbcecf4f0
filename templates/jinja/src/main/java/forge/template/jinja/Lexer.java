package forge.template.jinja;

import forge.lib.text.PythonText;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * Jinja2's lexer as transformers configures it: {@code trim_blocks}, {@code lstrip_blocks}, the
 * {@code -}/{@code +} markers, {@code raw} blocks, newlines normalised to {@code \n} and one
 * trailing newline dropped ({@code keep_trailing_newline=False}). The whitespace rules follow
 * {@code jinja2/lexer.py} ({@code tokeniter}) rule for rule, since they decide the bytes of every
 * prompt: a line's indent before a block or comment tag goes only when nothing else is on the line
 * before it, and only the one newline right after a block or comment tag goes.
 */
final class Lexer {

    enum Kind {
        TEXT,
        VAR_BEGIN,
        VAR_END,
        BLOCK_BEGIN,
        BLOCK_END,
        NAME,
        STRING,
        INT,
        FLOAT,
        OP,
        EOF
    }

    /** One token; {@code value} is a literal's value (String, Long, BigInteger, Double), else the text. */
    record Token(Kind kind, Object value, int line) {
        String text() {
            return String.valueOf(value);
        }

        boolean is(Kind k, String v) {
            return kind == k && value.equals(v);
        }

        boolean isOp(String op) {
            return kind == Kind.OP && value.equals(op);
        }

        boolean isName(String name) {
            return kind == Kind.NAME && value.equals(name);
        }
    }

    private static final String[] OPERATORS = {
        "//", "**", "==", "!=", ">=", "<=", "+", "-", "/", "*", "%", "~", "[", "]", "(", ")", "{", "}", ">", "<", "=",
        ".", ":", "|", ",", ";"
    };

    private final String src;
    private final List<Token> out = new ArrayList<>();
    private int pos;
    private int line = 1;

    private Lexer(String source) {
        String s = source.replace("\r\n", "\n").replace('\r', '\n');
        this.src = s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
    }

    static List<Token> tokenize(String source) {
        Lexer lexer = new Lexer(source);
        lexer.run();
        return lexer.out;
    }

    private void run() {
        boolean stripNext = false; // the previous tag ended with '-': the text after it loses its leading whitespace
        while (pos < src.length()) {
            int tag = nextTag(pos);
            int end = tag < 0 ? src.length() : tag;
            String text = src.substring(pos, end);
            int lines = count(text);
            boolean lineStarting = pos == 0 || src.charAt(pos - 1) == '\n';
            if (stripNext) {
                text = text.substring(leadingSpace(text));
            }
            stripNext = false;
            if (tag < 0) {
                text(text, lines);
                pos = end;
                break;
            }
            char kind = src.charAt(tag + 1);
            char sign = tag + 2 < src.length() ? src.charAt(tag + 2) : 0;
            text(beforeTag(text, kind, sign, lineStarting), lines);
            pos = tag;
            switch (kind) {
                case '#' -> stripNext = comment();
                case '%' -> {
                    if (isRaw()) {
                        stripNext = raw();
                    } else {
                        stripNext = tag(Kind.BLOCK_BEGIN, Kind.BLOCK_END, '%');
                    }
                }
                default -> stripNext = tag(Kind.VAR_BEGIN, Kind.VAR_END, '}');
            }
        }
        out.add(new Token(Kind.EOF, "end of template", line));
    }

    /** The text before a tag as the tag's sign and lstrip_blocks leave it. */
    private static String beforeTag(String text, char kind, char sign, boolean lineStarting) {
        if (sign == '-') {
            return text.substring(0, text.length() - trailingSpace(text));
        }
        if (kind != '{' && sign != '+') {
            int lpos = text.lastIndexOf('\n') + 1;
            if (lpos > 0 || lineStarting) {
                for (int i = lpos; i < text.length(); i++) {
                    char c = text.charAt(i);
                    if (c != ' ' && c != '\t') {
                        return text;
                    }
                }
                return text.substring(0, lpos);
            }
        }
        return text;
    }

    /** Emits {@code text}, what is left of a stretch of the source spanning {@code lines} newlines. */
    private void text(String text, int lines) {
        if (!text.isEmpty()) {
            out.add(new Token(Kind.TEXT, text, line));
        }
        line += lines;
    }

    /** The next {@code {{}, {@code {%} or {@code {#} at or after {@code from}, or -1. */
    private int nextTag(int from) {
        for (int i = src.indexOf('{', from); i >= 0 && i + 1 < src.length(); i = src.indexOf('{', i + 1)) {
            char c = src.charAt(i + 1);
            if (c == '{' || c == '%' || c == '#') {
                return i;
            }
        }
        return -1;
    }

    /** A comment: skipped; returns whether it ended with {@code -#}}. */
    private boolean comment() {
        int close = src.indexOf("#}", pos + 2);
        if (close < 0) {
            throw new JinjaException("missing end of comment tag", line);
        }
        boolean minus = close > pos + 2 && src.charAt(close - 1) == '-';
        boolean plus = close > pos + 2 && src.charAt(close - 1) == '+';
        line += count(src.substring(pos, close + 2));
        pos = close + 2;
        if (!minus && !plus) {
            trimBlock();
        }
        return minus;
    }

    /** trim_blocks: the one newline right after a block or comment tag goes. */
    private void trimBlock() {
        if (pos < src.length() && src.charAt(pos) == '\n') {
            pos++;
            line++;
        }
    }

    private boolean isRaw() {
        int i = pos + 2;
        if (i < src.length() && (src.charAt(i) == '-' || src.charAt(i) == '+')) {
            i++;
        }
        i += leadingSpace(src.substring(i, Math.min(src.length(), i + 64)));
        if (!src.startsWith("raw", i)) {
            return false;
        }
        i += 3;
        while (i < src.length() && isSpace(src.charAt(i))) {
            i++;
        }
        return src.startsWith("%}", i) || src.startsWith("-%}", i);
    }

    /** {@code {% raw %}...{% endraw %}}: the content is text as written. */
    private boolean raw() {
        int close = src.indexOf("%}", pos);
        boolean minus = src.charAt(close - 1) == '-';
        line += count(src.substring(pos, close + 2));
        pos = close + 2;
        if (minus) {
            int skip = leadingSpace(src.substring(pos));
            line += count(src.substring(pos, pos + skip));
            pos += skip;
        }
        int start = pos;
        int at = pos;
        while (true) {
            int tag = src.indexOf("{%", at);
            if (tag < 0) {
                throw new JinjaException("missing end of raw directive", line);
            }
            int i = tag + 2;
            char sign = i < src.length() ? src.charAt(i) : 0;
            if (sign == '-' || sign == '+') {
                i++;
            }
            while (i < src.length() && isSpace(src.charAt(i))) {
                i++;
            }
            if (src.startsWith("endraw", i)) {
                int j = i + 6;
                while (j < src.length() && isSpace(src.charAt(j))) {
                    j++;
                }
                boolean endMinus = src.startsWith("-%}", j);
                boolean endPlus = src.startsWith("+%}", j);
                if (endMinus || endPlus || src.startsWith("%}", j)) {
                    String text = src.substring(start, tag);
                    text(beforeTag(text, '%', sign, start == 0 || src.charAt(start - 1) == '\n'), count(text));
                    line += count(src.substring(tag, j));
                    pos = j + (endMinus || endPlus ? 3 : 2);
                    if (!endMinus && !endPlus) {
                        trimBlock();
                    }
                    return endMinus;
                }
            }
            at = tag + 2;
        }
    }

    /** A {@code {{ }}} or {@code {% %}} tag's tokens; returns whether it ended with {@code -}. */
    private boolean tag(Kind begin, Kind end, char closer) {
        out.add(new Token(begin, begin == Kind.VAR_BEGIN ? "{{" : "{%", line));
        pos += 2;
        if (pos < src.length() && (src.charAt(pos) == '-' || src.charAt(pos) == '+')) {
            pos++;
        }
        int depth = 0;
        while (true) {
            while (pos < src.length() && isSpace(src.charAt(pos))) {
                if (src.charAt(pos) == '\n') {
                    line++;
                }
                pos++;
            }
            if (pos >= src.length()) {
                throw new JinjaException(
                        "unexpected end of template, expected '" + (closer == '%' ? "%}" : "}}") + "'", line);
            }
            if (depth == 0) {
                String close = closer + "}";
                if (src.startsWith("-" + close, pos)) {
                    out.add(new Token(end, close, line));
                    pos += 3;
                    return true;
                }
                if (closer == '%' && src.startsWith("+" + close, pos)) {
                    out.add(new Token(end, close, line));
                    pos += 3;
                    return false;
                }
                if (src.startsWith(close, pos)) {
                    out.add(new Token(end, close, line));
                    pos += 2;
                    if (closer == '%') {
                        trimBlock();
                    }
                    return false;
                }
            }
            char c = src.charAt(pos);
            if (c == '\'' || c == '"') {
                string(c);
            } else if (Character.isDigit(c)) {
                number();
            } else if (Character.isLetter(c) || c == '_') {
                int start = pos;
                while (pos < src.length() && (Character.isLetterOrDigit(src.charAt(pos)) || src.charAt(pos) == '_')) {
                    pos++;
                }
                out.add(new Token(Kind.NAME, src.substring(start, pos), line));
            } else {
                String op = operator();
                if (op == null) {
                    throw new JinjaException("unexpected char '" + c + "' at " + pos, line);
                }
                if (op.equals("(") || op.equals("[") || op.equals("{")) {
                    depth++;
                } else if (op.equals(")") || op.equals("]") || op.equals("}")) {
                    depth--;
                    if (depth < 0) {
                        throw new JinjaException("unexpected '" + op + "'", line);
                    }
                }
                out.add(new Token(Kind.OP, op, line));
                pos += op.length();
            }
        }
    }

    private String operator() {
        for (String op : OPERATORS) {
            if (src.startsWith(op, pos)) {
                return op;
            }
        }
        return null;
    }

    private void number() {
        int start = pos;
        digits();
        boolean isFloat = false;
        if (pos + 1 < src.length() && src.charAt(pos) == '.' && Character.isDigit(src.charAt(pos + 1))) {
            pos++;
            digits();
            isFloat = true;
        }
        if (pos < src.length() && (src.charAt(pos) == 'e' || src.charAt(pos) == 'E')) {
            int save = pos;
            pos++;
            if (pos < src.length() && (src.charAt(pos) == '+' || src.charAt(pos) == '-')) {
                pos++;
            }
            if (pos < src.length() && Character.isDigit(src.charAt(pos))) {
                digits();
                isFloat = true;
            } else {
                pos = save;
            }
        }
        String text = src.substring(start, pos).replace("_", "");
        if (isFloat) {
            out.add(new Token(Kind.FLOAT, Double.parseDouble(text), line));
        } else {
            BigInteger big = new BigInteger(text);
            out.add(new Token(Kind.INT, big.bitLength() < 64 ? (Object) big.longValue() : big, line));
        }
    }

    private void digits() {
        while (pos < src.length()
                && (Character.isDigit(src.charAt(pos))
                        || src.charAt(pos) == '_'
                                && pos + 1 < src.length()
                                && Character.isDigit(src.charAt(pos + 1)))) {
            pos++;
        }
    }

    /** A string literal with Python's escapes ({@code unicode-escape}: unknown ones stay as written). */
    private void string(char quote) {
        int startLine = line;
        StringBuilder sb = new StringBuilder();
        pos++;
        while (true) {
            if (pos >= src.length()) {
                throw new JinjaException("unexpected end of string", startLine);
            }
            char c = src.charAt(pos++);
            if (c == quote) {
                break;
            }
            if (c == '\n') {
                line++;
            }
            if (c != '\\' || pos >= src.length()) {
                sb.append(c);
                continue;
            }
            char e = src.charAt(pos++);
            switch (e) {
                case 'n' -> sb.append('\n');
                case 't' -> sb.append('\t');
                case 'r' -> sb.append('\r');
                case '\\' -> sb.append('\\');
                case '\'' -> sb.append('\'');
                case '"' -> sb.append('"');
                case 'a' -> sb.append('\u0007');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'v' -> sb.append('\u000b');
                case '\n' -> line++; // a backslash-newline joins lines
                case 'x' -> hex(sb, 2, e);
                case 'u' -> hex(sb, 4, e);
                case 'U' -> hex(sb, 8, e);
                default -> {
                    if (e >= '0' && e <= '7') {
                        int v = e - '0';
                        for (int k = 0;
                                k < 2 && pos < src.length() && src.charAt(pos) >= '0' && src.charAt(pos) <= '7';
                                k++) {
                            v = v * 8 + (src.charAt(pos++) - '0');
                        }
                        sb.append((char) v);
                    } else {
                        sb.append('\\').append(e);
                    }
                }
            }
        }
        out.add(new Token(Kind.STRING, sb.toString(), startLine));
    }

    private void hex(StringBuilder sb, int n, char e) {
        if (pos + n > src.length()) {
            throw new JinjaException("truncated \\" + e + " escape in a string", line);
        }
        try {
            sb.appendCodePoint(Integer.parseInt(src.substring(pos, pos + n), 16));
        } catch (IllegalArgumentException bad) {
            throw new JinjaException("truncated \\" + e + " escape in a string", line);
        }
        pos += n;
    }

    private static int count(String s) {
        int n = 0;
        for (int i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) {
            n++;
        }
        return n;
    }

    private static int leadingSpace(String s) {
        int i = 0;
        while (i < s.length() && isSpace(s.charAt(i))) {
            i++;
        }
        return i;
    }

    private static int trailingSpace(String s) {
        int i = 0;
        while (i < s.length() && isSpace(s.charAt(s.length() - 1 - i))) {
            i++;
        }
        return i;
    }

    /** Python's {@code \s} in a {@code str} pattern, which the lexer's {@code -} markers strip. */
    private static boolean isSpace(char c) {
        return PythonText.isSpace(c);
    }
}
