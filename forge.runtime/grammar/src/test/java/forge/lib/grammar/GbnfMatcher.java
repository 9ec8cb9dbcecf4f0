package forge.lib.grammar;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Whether a GBNF grammar's {@code root} matches a text whole: a small backtracking reader of the
 * GBNF that grammars here produce (literals, classes, {@code .}, rule references, groups,
 * alternatives, {@code ? * + {m,n}}), written apart from llama.cpp, so tests can check what a
 * translation accepts without a model. Exponential at worst: for short texts only.
 */
final class GbnfMatcher {

    private sealed interface Expr permits Text, Chars, Ref, Seq, Alt, Rep {}

    private record Text(int[] cps) implements Expr {}

    /** {@code ranges} pairs lo, hi. */
    private record Chars(List<int[]> ranges, boolean negated) implements Expr {}

    private record Ref(String name) implements Expr {}

    private record Seq(List<Expr> items) implements Expr {}

    private record Alt(List<Expr> alternatives) implements Expr {}

    private record Rep(Expr item, int min, int max) implements Expr {}

    private interface Then {
        boolean at(int pos);
    }

    private final Map<String, Expr> rules = new HashMap<>();
    private String src;
    private int pos;
    private int[] text;

    private GbnfMatcher(String gbnf) {
        for (String line : gbnf.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            int sep = line.indexOf("::=");
            src = line.substring(sep + 3);
            pos = 0;
            rules.put(line.substring(0, sep).strip(), alternatives());
        }
    }

    static boolean matches(String gbnf, String input) {
        GbnfMatcher m = new GbnfMatcher(gbnf);
        m.text = input.codePoints().toArray();
        return m.match(new Ref("root"), 0, p -> p == m.text.length);
    }

    // ---------------------------------------------------------------- reading GBNF

    private void blanks() {
        while (pos < src.length() && Character.isWhitespace(src.charAt(pos))) {
            pos++;
        }
    }

    private Expr alternatives() {
        List<Expr> alts = new ArrayList<>();
        alts.add(sequence());
        while (pos < src.length() && src.charAt(pos) == '|') {
            pos++;
            alts.add(sequence());
        }
        return alts.size() == 1 ? alts.getFirst() : new Alt(alts);
    }

    private Expr sequence() {
        List<Expr> items = new ArrayList<>();
        while (true) {
            blanks();
            if (pos >= src.length() || src.charAt(pos) == '|' || src.charAt(pos) == ')') {
                return new Seq(items);
            }
            char c = src.charAt(pos);
            Expr e;
            if (c == '"') {
                pos++;
                List<Integer> cps = new ArrayList<>();
                while (src.charAt(pos) != '"') {
                    cps.add(character());
                }
                pos++;
                e = new Text(cps.stream().mapToInt(Integer::intValue).toArray());
            } else if (c == '[') {
                pos++;
                boolean negated = src.charAt(pos) == '^';
                if (negated) {
                    pos++;
                }
                List<int[]> ranges = new ArrayList<>();
                while (src.charAt(pos) != ']') {
                    int lo = character();
                    int hi = lo;
                    if (src.charAt(pos) == '-' && src.charAt(pos + 1) != ']') {
                        pos++;
                        hi = character();
                    }
                    ranges.add(new int[] {lo, hi});
                }
                pos++;
                e = new Chars(ranges, negated);
            } else if (c == '.') {
                pos++;
                e = new Chars(List.of(), true);
            } else if (c == '(') {
                pos++;
                e = alternatives();
                blanks();
                pos++; // ')'
            } else {
                int start = pos;
                while (pos < src.length() && (Character.isLetterOrDigit(src.charAt(pos)) || src.charAt(pos) == '-')) {
                    pos++;
                }
                if (start == pos) {
                    throw new IllegalArgumentException("cannot read GBNF at '" + src.substring(pos) + "'");
                }
                e = new Ref(src.substring(start, pos));
            }
            while (pos < src.length() && "?*+{".indexOf(src.charAt(pos)) >= 0) {
                char op = src.charAt(pos++);
                if (op == '{') {
                    int close = src.indexOf('}', pos);
                    String[] n = src.substring(pos, close).split(",", -1);
                    pos = close + 1;
                    int min = Integer.parseInt(n[0].strip());
                    int max = n.length == 1 ? min : n[1].isBlank() ? -1 : Integer.parseInt(n[1].strip());
                    e = new Rep(e, min, max);
                } else {
                    e = new Rep(e, op == '+' ? 1 : 0, op == '?' ? 1 : -1);
                }
            }
            items.add(e);
        }
    }

    private int character() {
        char c = src.charAt(pos);
        if (c != '\\') {
            int cp = src.codePointAt(pos);
            pos += Character.charCount(cp);
            return cp;
        }
        char e = src.charAt(pos + 1);
        int hex = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
        if (hex > 0) {
            int cp = Integer.parseInt(src.substring(pos + 2, pos + 2 + hex), 16);
            pos += 2 + hex;
            return cp;
        }
        pos += 2;
        return switch (e) {
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            default -> e;
        };
    }

    // ---------------------------------------------------------------- matching

    private boolean match(Expr e, int at, Then then) {
        return switch (e) {
            case Text t -> {
                if (at + t.cps().length > text.length) {
                    yield false;
                }
                for (int i = 0; i < t.cps().length; i++) {
                    if (text[at + i] != t.cps()[i]) {
                        yield false;
                    }
                }
                yield then.at(at + t.cps().length);
            }
            case Chars c -> {
                if (at >= text.length) {
                    yield false;
                }
                int cp = text[at];
                boolean in = c.ranges().stream().anyMatch(r -> r[0] <= cp && cp <= r[1]);
                yield in != c.negated() && then.at(at + 1);
            }
            case Ref r -> {
                Expr rule = rules.get(r.name());
                if (rule == null) {
                    throw new IllegalArgumentException("undefined rule " + r.name());
                }
                yield match(rule, at, then);
            }
            case Seq s -> sequence(s.items(), 0, at, then);
            case Alt a -> a.alternatives().stream().anyMatch(x -> match(x, at, then));
            case Rep r -> repeat(r, 0, at, then);
        };
    }

    private boolean sequence(List<Expr> items, int i, int at, Then then) {
        if (i == items.size()) {
            return then.at(at);
        }
        return match(items.get(i), at, p -> sequence(items, i + 1, p, then));
    }

    private boolean repeat(Rep r, int count, int at, Then then) {
        if (r.max() < 0 || count < r.max()) {
            // One more, greedily; an iteration that matched nothing stands for all the rest (else it would loop).
            if (match(r.item(), at, p -> p > at ? repeat(r, count + 1, p, then) : then.at(p))) {
                return true;
            }
        }
        return count >= r.min() && then.at(at);
    }
}
