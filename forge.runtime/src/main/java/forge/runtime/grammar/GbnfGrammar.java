package forge.runtime.grammar;

import java.util.ArrayList;
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
    public static final class InvalidGrammarException extends forge.api.ForgeException {
        private final int line;
        private final int column;

        InvalidGrammarException(int line, int column, String message) {
            super(line > 0 ? "invalid grammar at line " + line + ", column " + column + ": " + message : "invalid grammar: " + message);
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

    /** One symbol of an alternative: a terminal, or a reference, maybe optional (x*, x?, x{0,n}). */
    private record Sym(String ref, boolean optional) {
    }

    private final String src;
    private int pos;
    /** Rule name → its alternatives; groups become synthesized rules, as in llama.cpp. */
    private final Map<String, List<List<Sym>>> rules = new LinkedHashMap<>();
    private final Map<String, Integer> referencedAt = new LinkedHashMap<>();
    private int groups;

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
        while (pos < src.length()) {
            char c = at(pos);
            if (c == '"') {
                pos++;
                boolean empty = true;
                while (at(pos) != '"') {
                    if (pos >= src.length()) {
                        throw error("unexpected end of input in a string literal");
                    }
                    character();
                    empty = false;
                }
                pos++;
                space(nested);
                seq.add(new Sym(null, empty));
            } else if (c == '[') {
                pos++;
                if (at(pos) == '^') {
                    pos++;
                }
                while (at(pos) != ']') {
                    if (pos >= src.length()) {
                        throw error("unexpected end of input in a character class");
                    }
                    character();
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
                pos = close + 1;
                space(nested);
                seq.add(new Sym(null, false));
            } else if (word(c)) {
                int start = pos;
                String ref = name();
                referencedAt.putIfAbsent(ref, start);
                space(nested);
                seq.add(new Sym(ref, false));
            } else if (c == '(') {
                pos++;
                space(true);
                String group = "(group " + (++groups) + ")";
                List<List<Sym>> alts = alternates(true);
                if (at(pos) != ')') {
                    throw error("expecting ')'");
                }
                pos++;
                space(nested);
                rules.put(group, alts);
                seq.add(new Sym(group, false));
            } else if (c == '.') {
                pos++;
                space(nested);
                seq.add(new Sym(null, false));
            } else if (c == '*' || c == '+' || c == '?') {
                repeat(seq, c != '+');
                pos++;
                space(nested);
            } else if (c == '{') {
                pos++;
                space(nested);
                int min = integer();
                space(nested);
                if (at(pos) == ',') {
                    pos++;
                    space(nested);
                    if (Character.isDigit(at(pos))) {
                        integer();
                        space(nested);
                    }
                }
                if (at(pos) != '}') {
                    throw error("expecting '}'");
                }
                repeat(seq, min == 0);
                pos++;
                space(nested);
            } else {
                break;
            }
        }
        return seq;
    }

    private void repeat(List<Sym> seq, boolean optional) {
        if (seq.isEmpty()) {
            throw error("expecting an item before a repetition operator");
        }
        if (optional) {
            Sym last = seq.removeLast();
            seq.add(new Sym(last.ref(), true));
        }
    }

    private int integer() {
        int start = pos;
        while (Character.isDigit(at(pos))) {
            pos++;
        }
        if (start == pos) {
            throw error("expecting an integer");
        }
        try {
            return Integer.parseInt(src.substring(start, pos));
        } catch (NumberFormatException e) {
            throw error("repetition count too large");
        }
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
                if (!nullable.contains(e.getKey()) && e.getValue().stream().anyMatch(alt -> alt.stream()
                        .allMatch(s -> s.optional() || (s.ref() != null && nullable.contains(s.ref()))))) {
                    nullable.add(e.getKey());
                    changed = true;
                }
            }
        }
        Set<String> done = new HashSet<>();
        for (String rule : rules.keySet()) {
            leftRecursion(rule, new ArrayList<>(), done, nullable);
        }
    }

    private void leftRecursion(String rule, List<String> path, Set<String> done, Set<String> nullable) {
        if (done.contains(rule)) {
            return;
        }
        if (path.contains(rule)) {
            String named = path.stream().filter(r -> !r.startsWith("(")).findFirst().orElse(rule);
            throw new InvalidGrammarException(0, 0, "rule '" + named + "' is left recursive");
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
