package forge.template.generic.jinja;

import forge.template.toolkit.PythonText;

/**
 * Jinja2's lexer-level whitespace handling, applied to the template's text before Jinjava parses
 * it, so that Jinjava (with its own trimming switched off) sees exactly the text Jinja2 keeps:
 * <ul>
 * <li>newlines normalised to {@code \n} and one trailing newline dropped
 *     ({@code keep_trailing_newline=False});</li>
 * <li>{@code {{-}, {@code {%-}, {@code {#-} strip the whitespace before the tag;
 *     {@code -}}}, {@code -%}}, {@code -#}} the whitespace after it;</li>
 * <li>trim_blocks: the newline right after a block or comment tag goes;</li>
 * <li>lstrip_blocks: spaces before a block or comment tag go when nothing else precedes it on
 *     its line (Jinjava stripped them after any text, {@code a {% if %}} too);</li>
 * <li>{@code {%+} and {@code +%}} keep what lstrip_blocks and trim_blocks would take;</li>
 * <li>comments are dropped, {@code {% raw %}} bodies kept verbatim.</li>
 * </ul>
 * Jinjava 2.8.2 honoured the markers only in part: a {@code {{-} left the indentation before it
 * in place, so every official template whose lines are indented around {@code {{- ... }}}
 * rendered stray spaces.
 */
final class WhitespaceControl {

    private WhitespaceControl() {
    }

    static String apply(String template) {
        String source = normalizeNewlines(template);
        StringBuilder out = new StringBuilder(source.length());
        int n = source.length();
        int i = 0;
        boolean lineStarting = true; // did the last thing the lexer matched end a line?
        while (i < n) {
            int open = nextOpen(source, i);
            if (open < 0) {
                text(out, source.substring(i));
                break;
            }
            char kind = source.charAt(open + 1);
            char sign = open + 2 < n ? source.charAt(open + 2) : 0;
            boolean marked = sign == '-' || sign == '+';
            String text = strip(source.substring(i, open), sign, kind != '{', lineStarting);
            int bodyStart = open + 2 + (marked ? 1 : 0);
            int close = closeOf(source, bodyStart, kind);
            if (close < 0) { // unterminated: leave the rest for Jinjava to report
                text(out, text);
                out.append(source, open, n);
                break;
            }
            String body = source.substring(bodyStart, close);
            char endSign = body.isEmpty() ? 0 : body.charAt(body.length() - 1);
            String core = endSign == '-' || endSign == '+' ? body.substring(0, body.length() - 1) : body;
            boolean raw = kind == '%' && core.strip().equals("raw");
            // '-' ends any tag; '+' only a block's, and not {% raw %}'s
            if (endSign == '-' || endSign == '+' && kind == '%' && !raw) {
                body = core;
            } else {
                endSign = 0;
            }
            int after = close + 2;
            if (endSign == '-') {
                after = skipSpace(source, after);
            } else if (endSign == 0 && kind != '{' && !raw && after < n && source.charAt(after) == '\n') {
                after++; // trim_blocks
            }
            text(out, text);
            if (raw) {
                after = raw(source, after, out);
            } else if (kind != '#') {
                tag(out, kind, body);
            }
            lineStarting = after > 0 && source.charAt(after - 1) == '\n';
            i = after;
        }
        return out.toString();
    }

    /** What the text before a tag keeps: all but trailing whitespace after {@code -}, all but a line's indent under lstrip_blocks. */
    private static String strip(String text, char sign, boolean block, boolean lineStarting) {
        if (sign == '-') {
            return PythonText.rstrip(text);
        }
        if (sign == '+' || !block) {
            return text;
        }
        int lineStart = text.lastIndexOf('\n') + 1;
        if ((lineStart > 0 || lineStarting) && lineStart < text.length() && isBlank(text, lineStart)) {
            return text.substring(0, lineStart);
        }
        return text;
    }

    /**
     * A {@code {% raw %}} body up to its {@code {% endraw %}}, copied into {@code out} inside
     * Jinjava's own raw tags; returns where the source goes on after the closing tag.
     */
    private static int raw(String source, int from, StringBuilder out) {
        int at = from;
        while (true) {
            int open = source.indexOf("{%", at);
            if (open < 0) { // unterminated: Jinjava reports it
                guardBrace(out);
                out.append("{% raw %}").append(source, from, source.length());
                return source.length();
            }
            char sign = open + 2 < source.length() ? source.charAt(open + 2) : 0;
            int nameAt = skipSpace(source, open + 2 + (sign == '-' || sign == '+' ? 1 : 0));
            if (!source.startsWith("endraw", nameAt)) {
                at = open + 2;
                continue;
            }
            int close = source.indexOf("%}", nameAt);
            if (close < 0) {
                at = open + 2;
                continue;
            }
            String body = strip(source.substring(from, open), sign, true, false);
            char endSign = source.charAt(close - 1);
            int after = close + 2;
            if (endSign == '-') {
                after = skipSpace(source, after);
            } else if (endSign != '+' && after < source.length() && source.charAt(after) == '\n') {
                after++;
            }
            guardBrace(out);
            out.append("{% raw %}").append(body).append("{% endraw %}");
            return after;
        }
    }

    private static void tag(StringBuilder out, char kind, String body) {
        guardBrace(out);
        out.append('{').append(kind).append(body).append(kind == '{' ? '}' : kind).append('}');
    }

    private static void text(StringBuilder out, String text) {
        if (!text.isEmpty() && "{%#".indexOf(text.charAt(0)) >= 0) {
            guardBrace(out);
        }
        out.append(text);
    }

    /**
     * A literal '{' that stripping (or a dropped comment) left touching a tag or a '{', '%', '#'
     * would open a tag in Jinjava ('{' + '{%' reads as '{{' + '%'): it is printed instead.
     */
    private static void guardBrace(StringBuilder out) {
        if (!out.isEmpty() && out.charAt(out.length() - 1) == '{') {
            out.setLength(out.length() - 1);
            out.append("{{ '{' }}");
        }
    }

    /** Jinja2's first step: every {@code \r\n}, {@code \r} and {@code \n} becomes {@code \n}, and one final newline goes. */
    static String normalizeNewlines(String s) {
        if (s.indexOf('\r') >= 0) {
            s = s.replace("\r\n", "\n").replace('\r', '\n');
        }
        return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
    }

    private static int nextOpen(String s, int from) {
        for (int k = s.indexOf('{', from); k >= 0 && k + 1 < s.length(); k = s.indexOf('{', k + 1)) {
            char c = s.charAt(k + 1);
            if (c == '{' || c == '%' || c == '#') {
                return k;
            }
        }
        return -1;
    }

    /** The index of the closing delimiter of a tag whose body starts at {@code from}, skipping string literals. */
    private static int closeOf(String s, int from, char kind) {
        if (kind == '#') {
            return s.indexOf("#}", from);
        }
        char closer = kind == '{' ? '}' : '%';
        char quote = 0;
        for (int k = from; k + 1 < s.length(); k++) {
            char c = s.charAt(k);
            if (quote != 0) {
                if (c == '\\') {
                    k++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == closer && s.charAt(k + 1) == '}') {
                return k;
            }
        }
        return -1;
    }

    private static int skipSpace(String s, int from) {
        int k = from;
        while (k < s.length() && PythonText.isSpace(s.charAt(k))) {
            k++;
        }
        return k;
    }

    private static boolean isBlank(String s, int from) {
        for (int k = from; k < s.length(); k++) {
            if (!PythonText.isSpace(s.charAt(k))) {
                return false;
            }
        }
        return true;
    }
}
