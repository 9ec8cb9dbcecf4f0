package forge.lib.grammar;

import forge.api.ForgeException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks GBNF text the way llama.cpp's grammar parser ({@code src/llama-grammar.cpp}) reads it:
 * syntax, undefined rules, a {@code root} rule and left recursion, so a bad grammar is refused
 * with its line and column before a generation starts, rather than failing inside the backend
 * (which only logs the error) after the response has begun.
 */
public final class GbnfGrammar {

    /** A grammar that llama.cpp would refuse. */
    public static final class InvalidGrammarException extends ForgeException {
        private final int line;
        private final int column;

        InvalidGrammarException(int line, int column, String message) {
            super(
                    line > 0
                            ? "invalid grammar at line " + line + ", column " + column + ": " + message
                            : "invalid grammar: " + message);
            this.line = line;
            this.column = column;
        }

        /** 1-based; 0 when the error is not at one place (an undefined rule, say). */
        public int line() {
            return line;
        }

        /** 1-based; 0 when {@link #line()} is 0. */
        public int column() {
            return column;
        }
    }

    /** How deep groups may nest: llama.cpp parses each level with two native stack frames. */
    public static final int MAX_NESTING = 128;
    /** How long a chain of leftmost rule references may be: llama.cpp walks it recursively. */
    public static final int MAX_REFERENCE_DEPTH = 1000;
    /** Steps of llama.cpp's left-recursion walk, which revisits shared rules on every path to them. */
    public static final long MAX_WALK_STEPS = 1_000_000;
    /** llama.cpp's {@code MAX_REPETITION_THRESHOLD}: repetition counts, and counts times the rules they repeat. */
    public static final int MAX_REPETITIONS = 2000;
    /** Grammar elements after llama.cpp expands repetitions (8 bytes each in native memory). */
    public static final long MAX_ELEMENTS = 1_000_000;

    /** One symbol of an alternative: a terminal, or a reference, maybe optional (x*, x?, x{0,n}). */
    private record Sym(String ref, boolean optional) {}

    private final String src;
    private int pos;
    /** Rule name → its alternatives; groups become synthesized rules, as in llama.cpp. */
    private final Map<String, List<List<Sym>>> rules = new LinkedHashMap<>();

    private final Map<String, Integer> referencedAt = new LinkedHashMap<>();
    private int groups;
    /** How deep the group being parsed nests. */
    private int depth;
    /** llama.cpp's symbol ids so far: every rule name it has seen, and every rule it synthesized. */
    private final Set<String> names = new HashSet<>();

    private long synthesized;
    /** Grammar elements llama.cpp will hold once repetitions are expanded. */
    private long elements;

    private GbnfGrammar(String src) {
        this.src = src;
    }

    /**
     * Checks a grammar whose start rule is {@code root}.
     *
     * @throws InvalidGrammarException naming the line and column, or the rule, that is wrong
     */
    public static void check(String gbnf) {
        GbnfGrammar g = new GbnfGrammar(gbnf);
        g.parse();
        g.validate();
    }

    private InvalidGrammarException error(String message) {
        int line = 1;
        int col = 1;
        for (int i = 0; i < pos && i < src.length(); i++) {
            if (src.charAt(i) == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        return new InvalidGrammarException(line, col, message);
    }

    private char at(int i) {
        return i < src.length() ? src.charAt(i) : '\0';
    }

    private static boolean word(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || (c >= '0' && c <= '9');
    }

    private void space(boolean newlineOk) {
        while (true) {
            char c = at(pos);
            if (c == ' ' || c == '\t' || (newlineOk && (c == '\r' || c == '\n'))) {
                pos++;
            } else if (c == '#') {
                while (pos < src.length() && at(pos) != '\r' && at(pos) != '\n') {
                    pos++;
                }
            } else {
                return;
            }
        }
    }

    private String name() {
        int start = pos;
        while (word(at(pos))) {
            pos++;
        }
        if (pos == start) {
            throw error("expecting a rule name");
        }
        return src.substring(start, pos);
    }

    private void parse() {
        space(true);
        while (pos < src.length()) {
            String name = name();
            names.add(name);
            space(false);
            if (!src.startsWith("::=", pos)) {
                throw error("expecting ::=");
            }
            pos += 3;
            space(true);
            List<List<Sym>> alts = alternates(false);
            rules.computeIfAbsent(name, k -> new ArrayList<>()).addAll(alts);
            if (at(pos) == '\r') {
                pos += at(pos + 1) == '\n' ? 2 : 1;
            } else if (at(pos) == '\n') {
                pos++;
            } else if (pos < src.length()) {
                throw error("expecting newline or end");
            }
            space(true);
        }
    }

    private List<List<Sym>> alternates(boolean nested) {
        List<List<Sym>> alts = new ArrayList<>();
        alts.add(sequence(nested));
        while (at(pos) == '|') {
            pos++;
            space(true);
            alts.add(sequence(nested));
        }
        return alts;
    }

    private List<Sym> sequence(boolean nested) {
        List<Sym> seq = new ArrayList<>();
        // As llama.cpp's parse_sequence: the rules the last symbol stands for, which a repetition
        // multiplies, and the elements it takes.
        long lastRules = 1;
        long lastElements = 0;
        while (pos < src.length()) {
            char c = at(pos);
            long before = elements;
            if (c != '*' && c != '+' && c != '?' && c != '{') {
                lastRules = 1;
            }
            if (c == '"') {
                pos++;
                boolean empty = true;
                while (at(pos) != '"') {
                    if (pos >= src.length()) {
                        throw error("unexpected end of input in a string literal");
                    }
                    character();
                    elements++;
                    empty = false;
                }
                pos++;
                space(nested);
                seq.add(new Sym(null, empty));
            } else if (c == '[') {
                elements++;
                pos++;
                if (at(pos) == '^') {
                    pos++;
                }
                while (at(pos) != ']') {
                    if (pos >= src.length()) {
                        throw error("unexpected end of input in a character class");
                    }
                    character();
                    elements++;
                    if (at(pos) == '-' && at(pos + 1) != ']') {
                        pos++;
                        if (pos >= src.length()) {
                            throw error("unexpected end of input in a character class");
                        }
                        character();
                    }
                }
                pos++;
                space(nested);
                seq.add(new Sym(null, false));
            } else if (c == '<' || (c == '!' && at(pos + 1) == '<')) {
                int close = src.indexOf('>', pos);
                if (close < 0) {
                    throw error("expecting '>'");
                }
                elements++;
                pos = close + 1;
                space(nested);
                seq.add(new Sym(null, false));
            } else if (word(c)) {
                int start = pos;
                String ref = name();
                names.add(ref);
                elements++;
                referencedAt.putIfAbsent(ref, start);
                space(nested);
                seq.add(new Sym(ref, false));
            } else if (c == '(') {
                if (depth >= MAX_NESTING) {
                    throw error("groups nest more than " + MAX_NESTING + " deep");
                }
                long symbolsBefore = names.size() + synthesized;
                synthesized++;
                pos++;
                space(true);
                String group = "(group " + (++groups) + ")";
                depth++;
                List<List<Sym>> alts = alternates(true);
                depth--;
                if (at(pos) != ')') {
                    throw error("expecting ')'");
                }
                pos++;
                space(nested);
                rules.put(group, alts);
                seq.add(new Sym(group, false));
                elements++;
                lastRules = Math.max(1, names.size() + synthesized - symbolsBefore);
                lastElements = 1;
            } else if (c == '.') {
                elements++;
                pos++;
                space(nested);
                seq.add(new Sym(null, false));
            } else if (c == '*' || c == '+' || c == '?') {
                long min = c == '+' ? 1 : 0;
                long max = c == '?' ? 1 : -1;
                lastRules = repeat(seq, min, max, lastRules, lastElements);
                lastElements = repeated(min, max, lastElements);
                pos++;
                space(nested);
            } else if (c == '{') {
                int at = pos;
                pos++;
                space(nested);
                long min = integer();
                long max = min;
                space(nested);
                if (at(pos) == ',') {
                    pos++;
                    space(nested);
                    max = -1;
                    if (Character.isDigit(at(pos))) {
                        max = integer();
                        space(nested);
                    }
                }
                if (at(pos) != '}') {
                    throw error("expecting '}'");
                }
                if (min > MAX_REPETITIONS || max > MAX_REPETITIONS) {
                    pos = at;
                    throw error(
                            "a repetition count of " + Math.max(min, max) + " is over the limit of " + MAX_REPETITIONS);
                }
                if (max >= 0 && max < min) {
                    pos = at;
                    throw error("the repetition's maximum is less than its minimum");
                }
                lastRules = repeat(seq, min, max, lastRules, lastElements);
                lastElements = repeated(min, max, lastElements);
                pos++;
                space(nested);
            } else {
                break;
            }
            if (c != '*' && c != '+' && c != '?' && c != '{' && c != '(') {
                lastElements = elements - before;
            }
            if (elements > MAX_ELEMENTS) {
                throw error("the grammar expands to more than " + MAX_ELEMENTS + " elements");
            }
        }
        return seq;
    }

    /**
     * Applies a repetition ({@code max} -1: none) to the last symbol, as llama.cpp's
     * handle_repetitions expands it, and returns the rules the repeated symbol now stands for.
     */
    private long repeat(List<Sym> seq, long min, long max, long lastRules, long lastElements) {
        if (seq.isEmpty()) {
            throw error("expecting an item before a repetition operator");
        }
        long total = max > 0 ? max : min > 0 ? min : 1;
        if (lastRules * total > MAX_REPETITIONS) {
            throw error("the repetition repeats " + lastRules + " rules " + total + " times, over the limit of "
                    + MAX_REPETITIONS);
        }
        // min - 1 more copies in place, then one rule per optional copy (or one for an open end).
        long optionalRules = max < 0 ? 1 : max - min;
        synthesized += optionalRules;
        elements += Math.max(0, min - 1) * lastElements + optionalRules * (lastElements + 3);
        if (min == 0) {
            Sym last = seq.removeLast();
            seq.add(new Sym(last.ref(), true));
        }
        return lastRules * total;
    }

    /** The elements in place of a symbol of {@code size} elements once repeated. */
    private static long repeated(long min, long max, long size) {
        return Math.max(1, min) * size + (max < 0 || max > min ? 1 : 0);
    }

    private long integer() {
        int start = pos;
        while (Character.isDigit(at(pos))) {
            pos++;
        }
        if (start == pos) {
            throw error("expecting an integer");
        }
        if (pos - start > 9) {
            pos = start;
            throw error("a repetition count of " + src.substring(start, start + 9) + "... is over the limit of "
                    + MAX_REPETITIONS);
        }
        return Long.parseLong(src.substring(start, pos));
    }

    private void character() {
        if (at(pos) == '\\') {
            int hex = switch (at(pos + 1)) {
                case 'x' -> 2;
                case 'u' -> 4;
                case 'U' -> 8;
                case 't', 'r', 'n', '\\', '"', '[', ']', '-' -> 0;
                default -> throw error("unknown escape '\\" + at(pos + 1) + "'");
            };
            pos += 2;
            for (int i = 0; i < hex; i++) {
                if (Character.digit(at(pos), 16) < 0) {
                    throw error("expecting " + hex + " hex digits");
                }
                pos++;
            }
        } else {
            pos += Character.charCount(src.codePointAt(pos));
        }
    }

    private void validate() {
        for (var e : referencedAt.entrySet()) {
            if (!rules.containsKey(e.getKey())) {
                pos = e.getValue();
                throw error("undefined rule '" + e.getKey() + "'");
            }
        }
        if (!rules.containsKey("root")) {
            throw new InvalidGrammarException(0, 0, "the grammar has no 'root' rule");
        }
        // Nullable rules, to a fixpoint: a left-recursion check must look through them.
        Set<String> nullable = new HashSet<>();
        boolean changed = true;
        while (changed) {
            changed = false;
            for (var e : rules.entrySet()) {
                if (!nullable.contains(e.getKey())
                        && e.getValue().stream()
                                .anyMatch(alt -> alt.stream()
                                        .allMatch(s ->
                                                s.optional() || (s.ref() != null && nullable.contains(s.ref()))))) {
                    nullable.add(e.getKey());
                    changed = true;
                }
            }
        }
        Set<String> done = new HashSet<>();
        for (String rule : rules.keySet()) {
            leftRecursion(rule, new ArrayList<>(), done, nullable);
        }
        // llama.cpp's own walk (llama_grammar_detect_left_recursion) follows the same references
        // but remembers a rule only once a walk from a top-level rule is over: from a rule it takes
        // one step per path of leftmost references, and recurses as deep as the longest one.
        Map<String, long[]> walks = new HashMap<>();
        for (String rule : rules.keySet()) {
            long[] w = nativeWalk(rule, walks, nullable, 0);
            if (w[0] > MAX_WALK_STEPS) {
                throw new InvalidGrammarException(
                        0,
                        0,
                        "the grammar's rules branch into each other too often for" + " llama.cpp to check it (over "
                                + MAX_WALK_STEPS + " steps); share fewer rules between alternatives");
            }
            if (w[1] > MAX_REFERENCE_DEPTH) {
                throw tooDeep(rule);
            }
        }
    }

    private static InvalidGrammarException tooDeep(String rule) {
        return new InvalidGrammarException(
                0,
                0,
                "leftmost rule references " + (rule.startsWith("(") ? "" : "from '" + rule + "' ") + "chain more than "
                        + MAX_REFERENCE_DEPTH + " rules deep");
    }

    /** {paths, longest path} of leftmost references from {@code rule}; paths saturate past the limit. */
    private long[] nativeWalk(String rule, Map<String, long[]> walks, Set<String> nullable, int depth) {
        long[] known = walks.get(rule);
        if (known != null) {
            return known;
        }
        if (depth > MAX_REFERENCE_DEPTH) {
            throw tooDeep(rule);
        }
        long paths = 1;
        long longest = 1;
        for (List<Sym> alt : rules.get(rule)) {
            for (Sym s : alt) {
                if (s.ref() != null) {
                    long[] w = nativeWalk(s.ref(), walks, nullable, depth + 1);
                    paths = Math.min(MAX_WALK_STEPS + 1, paths + w[0]);
                    longest = Math.max(longest, w[1] + 1);
                }
                if (!s.optional() && !(s.ref() != null && nullable.contains(s.ref()))) {
                    break;
                }
            }
        }
        long[] w = {paths, longest};
        walks.put(rule, w);
        return w;
    }

    private void leftRecursion(String rule, List<String> path, Set<String> done, Set<String> nullable) {
        if (done.contains(rule)) {
            return;
        }
        if (path.contains(rule)) {
            String named =
                    path.stream().filter(r -> !r.startsWith("(")).findFirst().orElse(rule);
            throw new InvalidGrammarException(0, 0, "rule '" + named + "' is left recursive");
        }
        if (path.size() >= MAX_REFERENCE_DEPTH) {
            String named =
                    path.stream().filter(r -> !r.startsWith("(")).findFirst().orElse(rule);
            throw new InvalidGrammarException(
                    0,
                    0,
                    "leftmost rule references from '" + named + "' chain more than " + MAX_REFERENCE_DEPTH
                            + " rules deep");
        }
        path.add(rule);
        for (List<Sym> alt : rules.get(rule)) {
            for (Sym s : alt) {
                if (s.ref() != null) {
                    leftRecursion(s.ref(), path, done, nullable);
                }
                if (!s.optional() && !(s.ref() != null && nullable.contains(s.ref()))) {
                    break;
                }
            }
        }
        path.removeLast();
        done.add(rule);
    }
}
