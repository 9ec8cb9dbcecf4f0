package forge.template.generic.jinja;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rewrites two expressions whose precedence Jinjava parses differently from Jinja2, inside each
 * tag, into the parenthesised form that both parse the same way:
 * <ul>
 * <li>{@code not x is defined} is {@code not (x is defined)} in Jinja2; Jinjava read
 *     {@code (not x) is defined}, always true (Llama 3.1's {@code date_string} default);</li>
 * <li>{@code namespace(a=messages|length - 1)}: Jinjava bound the filter and the subtraction to
 *     the named parameter itself ({@code (a=messages|length) - 1}), so Qwen3's template failed.
 *     Each keyword argument of {@code namespace(...)} gets parentheses around its value;</li>
 * <li>{@code messages[::-1]}, a slice Jinjava's parser rejects, becomes {@code (messages|reverse|list)}.</li>
 * </ul>
 */
final class PythonSyntax {

    private static final Pattern NOT_IS = Pattern.compile(
            "\\bnot\\s+([A-Za-z_][\\w.]*(?:\\[[^\\]]*\\])*)\\s+is\\s+(not\\s+)?([A-Za-z_]\\w*)");

    private static final Pattern REVERSED = Pattern.compile("([A-Za-z_][\\w.]*)\\[::-1\\]");

    private PythonSyntax() {
    }

    static String rewrite(String body) {
        if (body.contains("[::-1]")) {
            body = REVERSED.matcher(body).replaceAll(m -> Matcher.quoteReplacement("(" + m.group(1) + "|reverse|list)"));
        }
        if (!body.contains("not ") && !body.contains("namespace(")) {
            return body;
        }
        return namespaceArguments(NOT_IS.matcher(body).replaceAll(m ->
                Matcher.quoteReplacement("not (" + m.group(1) + " is " + (m.group(2) == null ? "" : "not ") + m.group(3) + ")")));
    }

    private static String namespaceArguments(String body) {
        int at = body.indexOf("namespace(");
        if (at < 0) {
            return body;
        }
        int start = at + "namespace(".length();
        StringBuilder out = new StringBuilder(body.substring(0, start));
        int depth = 0;
        char quote = 0;
        int argStart = start;
        int k = start;
        for (; k < body.length(); k++) {
            char c = body.charAt(k);
            if (quote != 0) {
                if (c == '\\') {
                    k++;
                } else if (c == quote) {
                    quote = 0;
                }
                continue;
            }
            if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
                depth--;
            } else if ((c == ',' || c == ')') && depth == 0) {
                out.append(keyword(body.substring(argStart, k))).append(c);
                argStart = k + 1;
                if (c == ')') {
                    break;
                }
            }
        }
        if (k >= body.length()) {
            return body; // unbalanced: leave it to Jinjava to report
        }
        return out.append(namespaceArguments(body.substring(k + 1))).toString();
    }

    private static final Pattern KEYWORD = Pattern.compile("(\\s*[A-Za-z_]\\w*\\s*=)(?!=)(.*)", Pattern.DOTALL);

    private static String keyword(String argument) {
        Matcher m = KEYWORD.matcher(argument);
        return m.matches() && !m.group(2).isBlank() ? m.group(1) + "(" + m.group(2) + ")" : argument;
    }
}
