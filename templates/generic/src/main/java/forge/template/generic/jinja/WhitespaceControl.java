package forge.template.generic.jinja;

/**
 * Applies Jinja2's whitespace control ({@code {{- x -}}}, {@code {%- if -%}}, {@code {#- -#}})
 * to the template's text before Jinjava parses it. Jinjava 2.8.2 honours the markers only in
 * part: a {@code {{-} left the indentation before it in place, so every official template whose
 * lines are indented around {@code {{- ... }}} rendered stray spaces. Here the whitespace that
 * Jinja2 would strip is removed from the literal text around each marked tag, and the marker
 * itself becomes a plain delimiter.
 */
final class WhitespaceControl {

    private WhitespaceControl() {
    }

    static String apply(String source) {
        StringBuilder out = new StringBuilder(source.length());
        int i = 0;
        int n = source.length();
        boolean stripNext = false;
        while (i < n) {
            int open = nextOpen(source, i);
            String text = source.substring(i, open < 0 ? n : open);
            if (stripNext) {
                text = lstrip(text);
            }
            if (open < 0) {
                out.append(text);
                break;
            }
            char kind = source.charAt(open + 1);
            boolean stripBefore = open + 2 < n && source.charAt(open + 2) == '-';
            if (stripBefore) {
                text = rstrip(text);
            }
            out.append(text);
            int close = closeOf(source, open + 2, kind);
            if (close < 0) { // unterminated: leave the rest for Jinjava to report
                out.append(source, open, n);
                break;
            }
            String body = source.substring(open + 2 + (stripBefore ? 1 : 0), close);
            stripNext = body.endsWith("-") && kind != '#' || kind == '#' && body.endsWith("-");
            if (stripNext) {
                body = body.substring(0, body.length() - 1);
            }
            if (kind == '%' && isRaw(body)) { // {% raw %}: copy verbatim up to {% endraw %}
                int end = source.indexOf("endraw", close);
                int endClose = end < 0 ? -1 : source.indexOf("%}", end);
                int stop = endClose < 0 ? n : endClose + 2;
                out.append('{').append(kind).append(stripBefore ? " " : "").append(body).append(source, close, stop);
                i = stop;
                stripNext = false;
                continue;
            }
            if (kind != '#') {
                body = PythonSyntax.rewrite(body);
            }
            char closer = kind == '{' ? '}' : kind;
            out.append('{').append(kind).append(stripBefore ? " " : "").append(body).append(stripNext ? " " : "")
                    .append(closer).append('}');
            i = close + 2;
        }
        return out.toString();
    }

    private static boolean isRaw(String body) {
        return body.strip().equals("raw");
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

    // Jinja2 strips with the regex \s: ASCII whitespace and Unicode spaces alike.
    private static String lstrip(String s) {
        int k = 0;
        while (k < s.length() && Character.isWhitespace(s.charAt(k))) {
            k++;
        }
        return s.substring(k);
    }

    private static String rstrip(String s) {
        int k = s.length();
        while (k > 0 && Character.isWhitespace(s.charAt(k - 1))) {
            k--;
        }
        return s.substring(0, k);
    }
}
