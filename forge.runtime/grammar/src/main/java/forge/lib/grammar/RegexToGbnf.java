package forge.lib.grammar;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A JSON Schema {@code pattern} as a GBNF rule for the JSON string it matches: a port of llama.cpp's
 * {@code _pattern_to_rule}. Patterns must be anchored ({@code ^...$}); groups, alternation,
 * classes, {@code * + ? {m,n}} and {@code \d \w \s} are supported. Unlike llama.cpp, {@code .} and
 * negated classes exclude the quote, backslash and control characters, so the string stays valid
 * JSON; a pattern that would need an escape inside the JSON string is refused.
 *
 * <p>{@link #text} reads a regular expression of plain text instead (a Lark grammar's regex
 * terminal): no quotes around the rule, {@code .} is any character but a newline (Python's), negated
 * classes exclude only what they name, and quotes and backslashes are characters like others.
 * {@link LarkGrammar} encodes such text for a JSON string afterwards where it needs to.
 */
final class RegexToGbnf {

    private static final Set<Character> NON_LITERAL =
            Set.of('|', '.', '(', ')', '[', ']', '{', '}', '*', '+', '?', '^', '$');
    private static final String JSON_UNSAFE = "\"\\\\\\x00-\\x1F\\x7F";

    /**
     * A part of the rule being built.
     *
     * @param nullable whether it matches the empty string: llama.cpp finds an unbounded repetition
     *                 of such a part left recursive ({@code S' ::= S S' |} with S empty), and refuses it
     */
    private record Piece(String text, boolean literal, boolean nullable) {
        Piece(String text, boolean literal) {
            this(text, literal, false);
        }

        String rule() {
            return literal ? "\"" + text + "\"" : text;
        }
    }

    private final JsonSchemaGrammar grammar;
    /** Plain text rather than a JSON string's content: see {@link #text}. */
    private final boolean text;

    private final String pattern;
    private final String name;
    private final String at;
    private final String sub;
    private final Map<String, String> subRuleIds = new HashMap<>();
    private int i;
    private int depth;

    RegexToGbnf(JsonSchemaGrammar grammar, String pattern, String name, String at) {
        this(grammar, pattern, name, at, false);
    }

    /**
     * A regular expression of plain text, matched whole (so unanchored), as a rule of {@code grammar}
     * named after {@code name}; {@code at} says where it is for errors, such as {@code line 3}.
     * Errors are {@link LarkGrammarException}s.
     */
    static RegexToGbnf text(JsonSchemaGrammar grammar, String regex, String name, String at) {
        return new RegexToGbnf(grammar, "^" + regex + "$", name, at, true);
    }

    private RegexToGbnf(JsonSchemaGrammar grammar, String pattern, String name, String at, boolean text) {
        this.grammar = grammar;
        this.text = text;
        this.pattern = pattern;
        this.name = name;
        this.at = at;
        if (pattern.length() < 2 || pattern.charAt(0) != '^' || pattern.charAt(pattern.length() - 1) != '$') {
            throw unsupported("not anchored with '^' and '$'");
        }
        this.sub = pattern.substring(1, pattern.length() - 1);
    }

    private RuntimeException unsupported(String why) {
        if (text) {
            return new LarkGrammarException(
                    at, "the regular expression /" + sub() + "/ is outside the supported subset: " + why);
        }
        return new UnsupportedSchemaException(at, "pattern", "'" + pattern + "': " + why);
    }

    /** The expression without the anchors {@link #text} added. */
    private String sub() {
        return pattern.substring(1, pattern.length() - 1);
    }

    /** The part a quantifier repeats, taken off {@code seq}: there is none at the start or right after a '|'. */
    private Piece repeated(List<Piece> seq) {
        if (seq.isEmpty() || (!seq.getLast().literal() && seq.getLast().text().equals("|"))) {
            throw invalid("nothing to repeat");
        }
        return seq.removeLast();
    }

    private RuntimeException unboundedRepetitionOfNothing(char operator) {
        return unsupported("'" + operator + "' repeats, without bound, a part that can match the empty string;"
                + " llama.cpp refuses such a grammar as left recursive");
    }

    private RuntimeException invalid(String why) {
        if (text) {
            return new LarkGrammarException(at, "the regular expression /" + sub() + "/ is invalid: " + why);
        }
        return new InvalidSchemaException(at, "invalid pattern '" + pattern + "': " + why);
    }

    String rule() {
        String body = transform().rule();
        if (depth != 0) {
            throw invalid("unbalanced parentheses");
        }
        if (text) {
            return grammar.addRule(name, body.isEmpty() ? "\"\"" : body);
        }
        return grammar.addRule(name, "\"\\\"\" (" + body + ") \"\\\"\"");
    }

    private String dot() {
        if (text) {
            return grammar.addRule(name + "-dot", "[^\\x0A]"); // Python's '.': anything but a newline
        }
        return grammar.addRule("dot", "[^" + JSON_UNSAFE + "\\x0A\\x0D]");
    }

    /**
     * In {@link #text}, an escaped punctuation character ({@code \\}, {@code \"}, {@code \-}, ...)
     * as GBNF writes it inside a literal or class; null where there is none.
     */
    private String escapedPunctuation(int pos) {
        if (!text || pos + 1 >= sub.length()) {
            return null;
        }
        char c = sub.charAt(pos + 1);
        if (Character.isLetterOrDigit(c) || c > 0x7E || c < 0x20) {
            return null;
        }
        return c == '"' || c == '\\' || c == '[' || c == ']' || c == '-' ? "\\" + c : String.valueOf(c);
    }

    private static int escapeLength(String p, int pos) {
        if (pos + 1 >= p.length() || p.charAt(pos) != '\\') {
            return 0;
        }
        int hex;
        switch (p.charAt(pos + 1)) {
            case 'x' -> hex = 2;
            case 'u' -> hex = 4;
            case 't', 'r', 'n', '[', ']', '-' -> {
                return 2;
            }
            default -> {
                return 0;
            }
        }
        if (pos + 2 + hex > p.length()) {
            return 0;
        }
        for (int k = pos + 2; k < pos + 2 + hex; k++) {
            if (Character.digit(p.charAt(k), 16) < 0) {
                return 0;
            }
        }
        return 2 + hex;
    }

    /** The class body for {@code \d}, {@code \w}, {@code \s}; null for other escapes. */
    private static String shorthand(char c) {
        return switch (c) {
            case 'd' -> "0-9";
            case 'w' -> "a-zA-Z0-9_";
            case 's' -> " \\t\\n\\r";
            default -> null;
        };
    }

    /** Whether a quantifier stands at {@code pos}. */
    private boolean quantified(int pos) {
        return pos < sub.length() && "*+?{".indexOf(sub.charAt(pos)) >= 0;
    }

    private Piece join(List<Piece> seq) {
        List<Piece> ret = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        // An alternation matches nothing when one of its alternatives does; a sequence, when all its parts do.
        boolean nullable = false;
        boolean alternativeNullable = true;
        for (Piece p : seq) {
            if (!p.literal() && p.text().equals("|")) {
                nullable |= alternativeNullable;
                alternativeNullable = true;
            } else {
                alternativeNullable &= p.nullable();
            }
        }
        nullable |= alternativeNullable;
        for (Piece p : seq) {
            if (p.literal()) {
                literal.append(p.text());
            } else {
                if (!literal.isEmpty()) {
                    ret.add(new Piece(literal.toString(), true));
                    literal.setLength(0);
                }
                ret.add(p);
            }
        }
        if (!literal.isEmpty()) {
            ret.add(new Piece(literal.toString(), true));
        }
        List<String> parts = new ArrayList<>();
        for (Piece p : ret) {
            parts.add(p.rule());
        }
        return new Piece(String.join(" ", parts), false, nullable);
    }

    private Piece transform() {
        List<Piece> seq = new ArrayList<>();
        int length = sub.length();
        while (i < length) {
            char c = sub.charAt(i);
            if (c == '.') {
                seq.add(new Piece(dot(), false));
                i++;
            } else if (c == '(') {
                i++;
                if (i < length && sub.charAt(i) == '?') {
                    if (i + 1 < length && sub.charAt(i + 1) == ':') {
                        i += 2;
                    } else {
                        throw unsupported("lookaround, named groups and inline flags are not supported");
                    }
                }
                depth++;
                if (depth > 100) {
                    throw unsupported("nesting too deep");
                }
                Piece group = transform();
                seq.add(new Piece("(" + group.rule() + ")", false, group.nullable()));
            } else if (c == ')') {
                i++;
                if (depth == 0) {
                    throw invalid("unbalanced parentheses");
                }
                depth--;
                return join(seq);
            } else if (c == '^' || c == '$') {
                throw unsupported("anchor inside the pattern");
            } else if (c == '[') {
                StringBuilder cls = new StringBuilder("[");
                i++;
                boolean negated = i < length && sub.charAt(i) == '^';
                if (negated) {
                    cls.append('^');
                    i++;
                }
                while (i < length && sub.charAt(i) != ']') {
                    char d = sub.charAt(i);
                    if (d == '\\') {
                        String sh = i + 1 < length ? shorthand(sub.charAt(i + 1)) : null;
                        if (sh != null) {
                            cls.append(sh);
                            i += 2;
                            continue;
                        }
                        int n = escapeLength(sub, i);
                        String punctuation = escapedPunctuation(i);
                        if (n == 0 && punctuation != null) {
                            cls.append(punctuation);
                            i += 2;
                            continue;
                        }
                        if (n == 0) {
                            throw unsupported("unsupported escape in character class: "
                                    + sub.substring(i, Math.min(i + 2, length)));
                        }
                        cls.append(sub, i, i + n);
                        i += n;
                    } else if (d == '"' && text) {
                        cls.append("\\\"");
                        i++;
                    } else if (d == '"') {
                        throw unsupported("a quote inside a class would need escaping in the JSON string");
                    } else {
                        cls.append(d);
                        i++;
                    }
                }
                if (i >= length) {
                    throw invalid("unterminated character class");
                }
                if (negated && !text) {
                    cls.append(JSON_UNSAFE);
                }
                cls.append(']');
                i++;
                seq.add(new Piece(cls.toString(), false));
            } else if (c == '|') {
                seq.add(new Piece("|", false));
                i++;
            } else if (c == '*' || c == '+' || c == '?') {
                Piece last = repeated(seq);
                i++;
                if (last.text().isEmpty() || (c == '?' && last.nullable())) {
                    seq.add(last); // repeating or making optional what matches nothing anyway changes nothing
                    continue;
                }
                if (last.nullable()) {
                    throw unboundedRepetitionOfNothing(c);
                }
                seq.add(new Piece(last.rule() + c, false, c != '+'));
            } else if (c == '{') {
                int close = sub.indexOf('}', i);
                if (close < 0) {
                    throw unsupported("unterminated curly brackets");
                }
                String[] nums = sub.substring(i + 1, close).split(",", -1);
                for (String n : nums) {
                    if (!n.trim().chars().allMatch(Character::isDigit)) {
                        throw unsupported("invalid number in curly brackets");
                    }
                }
                i = close + 1;
                int min;
                int max;
                try {
                    if (nums.length == 1) {
                        min = max = Integer.parseInt(nums[0].trim());
                    } else if (nums.length == 2) {
                        min = nums[0].isBlank() ? 0 : Integer.parseInt(nums[0].trim());
                        max = nums[1].isBlank() ? Integer.MAX_VALUE : Integer.parseInt(nums[1].trim());
                    } else {
                        throw unsupported("wrong number of values in curly brackets");
                    }
                } catch (NumberFormatException e) {
                    throw unsupported("invalid number in curly brackets");
                }
                if (min > max) {
                    throw invalid("the repetition's maximum is less than its minimum");
                }
                Repetitions.check(min, at, "pattern");
                Repetitions.check(max, at, "pattern");
                Piece last = repeated(seq);
                if (last.text().isEmpty()) {
                    seq.add(last);
                    continue;
                }
                if (last.nullable() && max == Integer.MAX_VALUE) {
                    throw unboundedRepetitionOfNothing('{');
                }
                String item;
                if (last.literal()) {
                    item = "\"" + last.text() + "\"";
                } else {
                    item = subRuleIds.computeIfAbsent(
                            last.text(), t -> grammar.addRule(name + "-" + (subRuleIds.size() + 1), t));
                }
                seq.add(new Piece(Repetitions.of(item, min, max, ""), false, min == 0 || last.nullable()));
            } else if (c == '\\' && i + 1 < length && shorthand(sub.charAt(i + 1)) != null) {
                seq.add(new Piece("[" + shorthand(sub.charAt(i + 1)) + "]", false));
                i += 2;
            } else {
                StringBuilder literal = new StringBuilder();
                while (i < length) {
                    char d = sub.charAt(i);
                    if (d == '\\') {
                        if (i == length - 1) {
                            throw invalid("trailing backslash");
                        }
                        char next = sub.charAt(i + 1);
                        if (shorthand(next) != null) {
                            break;
                        }
                        if (!literal.isEmpty() && quantified(i + Math.max(2, escapeLength(sub, i)))) {
                            break; // the quantifier repeats this character alone: it starts a piece of its own
                        }
                        if ("^$.[]()|{}*+?/".indexOf(next) >= 0) {
                            literal.append(next);
                            i += 2;
                        } else if (escapeLength(sub, i) == 0 && escapedPunctuation(i) != null) {
                            literal.append(next == '"' || next == '\\' ? "\\" + next : String.valueOf(next));
                            i += 2;
                        } else {
                            int n = escapeLength(sub, i);
                            if (n == 0) {
                                throw unsupported("unsupported escape: " + sub.substring(i, i + 2));
                            }
                            literal.append(sub, i, i + n);
                            i += n;
                        }
                    } else if (d == '"' && !text) {
                        throw unsupported("a quote would need escaping in the JSON string");
                    } else if (!NON_LITERAL.contains(d)
                            && (i == length - 1
                                    || literal.isEmpty()
                                    || sub.charAt(i + 1) == '.'
                                    || !NON_LITERAL.contains(sub.charAt(i + 1)))) {
                        literal.append(d == '"' ? "\\\"" : String.valueOf(d));
                        i++;
                    } else {
                        break;
                    }
                }
                if (literal.isEmpty()) {
                    throw unsupported("unsupported character: " + c);
                }
                seq.add(new Piece(literal.toString(), true));
            }
        }
        return join(seq);
    }
}
