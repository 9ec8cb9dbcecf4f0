package forge.lib.grammar;

import forge.lib.grammar.LarkNode.Alt;
import forge.lib.grammar.LarkNode.Def;
import forge.lib.grammar.LarkNode.Lit;
import forge.lib.grammar.LarkNode.Range;
import forge.lib.grammar.LarkNode.Re;
import forge.lib.grammar.LarkNode.Ref;
import forge.lib.grammar.LarkNode.Rep;
import forge.lib.grammar.LarkNode.Seq;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Lark grammar (the notation of OpenAI's freeform {@code custom} tools, such as Codex's
 * {@code apply_patch}) translated to GBNF, so decoding writes only text the grammar accepts.
 *
 * <p>The subset tool grammars use: rules and terminals ({@code name: ...}, {@code NAME: ...}, with
 * the {@code ?}/{@code !} modifiers and priorities, which shape Lark's parse tree, not its language),
 * string literals (with the {@code i} flag) and ranges ({@code "a".."z"}), regular-expression
 * terminals ({@code /.../}, through {@link RegexToGbnf}), alternatives on one line or continued with a
 * leading {@code |}, {@code ?}, {@code *}, {@code +}, {@code ~ n} and {@code ~ n..m}, groups
 * {@code (...)} and optionals {@code [...]}, {@code -> alias}, {@code %import common.NAME} (and
 * {@code common.NAME -> ALIAS}, {@code common (A, B)}), {@code %ignore}, and {@code //} comments.
 * The grammar starts at {@code start}. Anything else ({@code %declare}, {@code %override},
 * templates, regex flags, imports of other grammar files, ...) is a {@link LarkGrammarException}
 * naming the construct and its line.
 *
 * <p>How the translation reads Lark:
 * <ul>
 * <li><b>The language, not the tree.</b> Terminals are matched where the grammar needs them, as
 *     Lark's Earley parser does, not split by a greedy lexer first.</li>
 * <li><b>{@code %ignore}</b>: what it names may stand before the first terminal and after every
 *     terminal of a rule (terminal definitions are atomic and hold none).</li>
 * <li><b>Direct left recursion</b> ({@code sum: sum "+" product | product}), which llama.cpp
 *     refuses, becomes repetition ({@code sum ::= (product) ("+" product)*}); other left recursion is
 *     refused with the rule's name.</li>
 * <li><b>Bounds</b>: the result is checked by {@link GbnfGrammar#check}, with every grammar's limits;
 *     groups nest at most {@link GbnfGrammar#MAX_NESTING} deep.</li>
 * </ul>
 *
 * {@snippet :
 * String gbnf = LarkGrammar.toGbnf("start: \"a\" NUMBER\n%import common.NUMBER\n");   // root ::= ...
 * // Rules for the text as a JSON string holds it, named after "tool0-input", for a tool's arguments:
 * String rules = LarkGrammar.rules(definition, "tool0-input", LarkGrammar.Encoding.JSON_STRING);
 * }
 */
public final class LarkGrammar {

    /** How the rules' text is spelled. */
    public enum Encoding {
        /** The text itself. */
        TEXT,
        /** The text as it stands between the quotes of a JSON string (see {@link JsonStringText}). */
        JSON_STRING
    }

    /**
     * Lark's {@code common.lark} terminals, written again here for their language (its
     * {@code ESCAPED_STRING} and {@code C_COMMENT} use a lookbehind and a lazy quantifier, which a
     * grammar says otherwise).
     */
    private static final String COMMON = """
            DIGIT: "0".."9"
            HEXDIGIT: "a".."f" | "A".."F" | DIGIT
            INT: DIGIT+
            SIGNED_INT: ["+" | "-"] INT
            DECIMAL: INT "." INT? | "." INT
            _EXP: ("e" | "E") SIGNED_INT
            FLOAT: INT _EXP | DECIMAL _EXP?
            SIGNED_FLOAT: ["+" | "-"] FLOAT
            NUMBER: FLOAT | INT
            SIGNED_NUMBER: ["+" | "-"] NUMBER
            ESCAPED_STRING: /"([^"\\\\\\n]|\\\\[^\\n])*"/
            LCASE_LETTER: "a".."z"
            UCASE_LETTER: "A".."Z"
            LETTER: UCASE_LETTER | LCASE_LETTER
            WORD: LETTER+
            CNAME: ("_" | LETTER) ("_" | LETTER | DIGIT)*
            WS_INLINE: (" " | /\\t/)+
            WS: /[ \\t\\x0c\\r\\n]/+
            CR: /\\r/
            LF: /\\n/
            NEWLINE: (CR? LF)+
            SH_COMMENT: /#[^\\n]*/
            CPP_COMMENT: /\\/\\/[^\\n]*/
            C_COMMENT: /\\/\\*([^*]|\\*+[^*\\/])*\\*+\\//
            SQL_COMMENT: /--[^\\n]*/
            """;

    private static final Pattern NAME = Pattern.compile("[_a-zA-Z][_a-zA-Z0-9]*");

    private final String src;
    private int pos;
    private int depth;
    /** The definitions by name, in the order written; what {@link LarkEmitter} turns into rules. */
    final Map<String, Def> defs = new LinkedHashMap<>();
    /** What {@code %ignore} names. */
    final List<LarkNode> ignored = new ArrayList<>();

    private LarkGrammar(String src) {
        this.src = src;
    }

    /**
     * The GBNF grammar whose {@code root} matches the text {@code definition} accepts.
     *
     * @throws LarkGrammarException when the definition is malformed or outside the subset
     */
    public static String toGbnf(String definition) {
        return "root ::= start\n" + rules(definition, "start", Encoding.TEXT);
    }

    /**
     * GBNF rules, one per line, whose rule {@code name} matches the text {@code definition} accepts,
     * spelled as {@code encoding} says; every rule's name starts with {@code name}.
     *
     * @throws LarkGrammarException when the definition is malformed or outside the subset
     */
    public static String rules(String definition, String name, Encoding encoding) {
        LarkGrammar g = new LarkGrammar(definition);
        g.parse();
        return LarkEmitter.rules(g, name, encoding);
    }

    /**
     * GBNF rules, as {@link #rules}, for the text a regular expression (OpenAI's {@code regex}
     * syntax of a custom tool's grammar) matches whole.
     *
     * @throws LarkGrammarException when the expression is outside the supported subset
     */
    public static String regexRules(String regex, String name, Encoding encoding) {
        LarkGrammar g = new LarkGrammar(regex);
        g.defs.put("start", new Def(new Re(regex, 0), 0));
        return LarkEmitter.rules(g, name, encoding);
    }

    // ---------------------------------------------------------------- parsing

    LarkGrammarException error(int at, String message) {
        return new LarkGrammarException("line " + line(at), message);
    }

    int line(int at) {
        int line = 1;
        for (int i = 0; i < Math.min(at, src.length()); i++) {
            if (src.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }

    private char peek() {
        return pos < src.length() ? src.charAt(pos) : '\0';
    }

    private boolean eof() {
        return pos >= src.length();
    }

    /** Skips blanks and comments on this line; newlines too inside brackets. */
    private void blanks() {
        while (!eof()) {
            char c = peek();
            if (c == ' ' || c == '\t' || c == '\r' || (c == '\n' && depth > 0)) {
                pos++;
            } else if (src.startsWith("//", pos) || (c == '#' && depth == 0 && lineStart())) {
                while (!eof() && peek() != '\n') {
                    pos++;
                }
            } else {
                return;
            }
        }
    }

    private boolean lineStart() {
        int i = pos - 1;
        while (i >= 0 && (src.charAt(i) == ' ' || src.charAt(i) == '\t')) {
            i--;
        }
        return i < 0 || src.charAt(i) == '\n';
    }

    /** Skips blanks, comments and newlines. */
    private void blankLines() {
        while (true) {
            blanks();
            if (peek() == '\n') {
                pos++;
            } else {
                return;
            }
        }
    }

    private void parse() {
        while (true) {
            blankLines();
            if (eof()) {
                break;
            }
            if (peek() == '%') {
                directive();
            } else {
                definition();
            }
            blanks();
            if (!eof() && peek() != '\n') {
                throw error(pos, "unexpected '" + peek() + "'" + hint());
            }
        }
        if (!defs.containsKey("start")) {
            throw new LarkGrammarException("the grammar", "there is no 'start' rule, where a Lark grammar begins");
        }
        for (var e : defs.entrySet()) {
            checkRefs(e.getValue().body());
        }
        for (LarkNode n : ignored) {
            checkRefs(n);
        }
    }

    private String hint() {
        char c = peek();
        if (c == '{') {
            return ": rule templates (name{...}) are not supported";
        }
        if (c == '.' && src.startsWith("..", pos)) {
            return ": a range ('..') joins two one-character literals";
        }
        return "";
    }

    private void checkRefs(LarkNode n) {
        switch (n) {
            case Ref r -> {
                if (!defs.containsKey(r.name())) {
                    throw error(
                            r.pos(),
                            "'" + r.name() + "' is used but not defined"
                                    + (r.name().equals(r.name().toUpperCase())
                                            ? " (a common terminal needs '%import common." + r.name() + "')"
                                            : ""));
                }
            }
            case Seq s -> s.items().forEach(this::checkRefs);
            case Alt a -> a.alternatives().forEach(this::checkRefs);
            case Rep r -> checkRefs(r.item());
            default -> {}
        }
    }

    private String name() {
        Matcher m = NAME.matcher(src).region(pos, src.length());
        if (!m.lookingAt()) {
            throw error(pos, eof() ? "unexpected end of the grammar" : "expected a name, found '" + peek() + "'");
        }
        pos = m.end();
        return m.group();
    }

    private void definition() {
        int start = pos;
        if (peek() == '?' || peek() == '!') {
            pos++; // inline and keep-all-tokens: how Lark shapes its tree, not what it accepts
        }
        String name = name();
        if (peek() == '{') {
            throw error(pos, "rule templates (" + name + "{...}) are not supported");
        }
        if (peek() == '.') {
            pos++; // a priority, which orders ambiguous parses: the language is the same
            if (peek() == '-') {
                pos++;
            }
            if (!Character.isDigit(peek())) {
                throw error(pos, "expected a priority number after '" + name + ".'");
            }
            while (Character.isDigit(peek())) {
                pos++;
            }
        }
        blanks();
        if (peek() != ':') {
            throw error(
                    pos,
                    "expected ':' after '" + name + "'"
                            + (peek() == '=' ? " (Lark writes rules 'name: ...', not with '=')" : ""));
        }
        pos++;
        LarkNode body = expansions();
        if (defs.containsKey(name)) {
            throw error(start, "'" + name + "' is defined twice");
        }
        defs.put(name, new Def(body, start));
    }

    private void directive() {
        int start = pos;
        pos++;
        String word = name();
        blanks();
        switch (word) {
            case "import" -> importDirective(start);
            case "ignore" -> {
                ignored.add(expr());
            }
            default ->
                throw error(start, "'%" + word + "' is not supported (only %import common.NAME and %ignore are)");
        }
    }

    private void importDirective(int start) {
        List<String> path = new ArrayList<>();
        if (peek() == '.') {
            throw error(
                    start,
                    "relative imports ('%import .name') are not supported: only Lark's 'common' terminals are here");
        }
        path.add(name());
        while (peek() == '.') {
            pos++;
            path.add(name());
        }
        blanks();
        Map<String, String> names = new LinkedHashMap<>(); // alias -> common name
        if (peek() == '(') {
            if (path.size() != 1) {
                throw error(start, "expected '%import common (NAME, ...)'");
            }
            pos++;
            blanks();
            while (true) {
                String n = name();
                names.put(n, n);
                blanks();
                if (peek() == ',') {
                    pos++;
                    blanks();
                } else if (peek() == ')') {
                    pos++;
                    break;
                } else {
                    throw error(pos, "expected ',' or ')' in the import list");
                }
            }
        } else {
            if (path.size() < 2) {
                throw error(start, "expected '%import common.NAME'");
            }
            String n = path.removeLast();
            String alias = n;
            if (src.startsWith("->", pos)) {
                pos += 2;
                blanks();
                alias = name();
            }
            names.put(alias, n);
        }
        if (!path.equals(List.of("common"))) {
            throw error(
                    start,
                    "'%import " + String.join(".", path)
                            + "' is not supported: only Lark's 'common' terminals can be imported here");
        }
        for (var e : names.entrySet()) {
            importCommon(e.getValue(), e.getKey(), start);
        }
    }

    /** Copies a common terminal under {@code alias}, the terminals it uses under {@code common__NAME}. */
    private void importCommon(String name, String alias, int at) {
        Map<String, Def> common = common();
        Def def = common.get(name);
        if (def == null) {
            throw error(at, "Lark's common grammar has no terminal '" + name + "'");
        }
        if (defs.containsKey(alias)) {
            throw error(at, "'" + alias + "' is defined twice");
        }
        defs.put(alias, new Def(renamed(def.body(), common, at), at));
    }

    private LarkNode renamed(LarkNode n, Map<String, Def> common, int at) {
        return switch (n) {
            case Ref r -> {
                String local = "common__" + r.name();
                if (!defs.containsKey(local)) {
                    defs.put(local, new Def(new Lit("", false), at)); // claimed before the recursion
                    defs.put(local, new Def(renamed(common.get(r.name()).body(), common, at), at));
                }
                yield new Ref(local, at);
            }
            case Seq s ->
                new Seq(s.items().stream().map(i -> renamed(i, common, at)).toList());
            case Alt a ->
                new Alt(a.alternatives().stream()
                        .map(i -> renamed(i, common, at))
                        .toList());
            case Rep r -> new Rep(renamed(r.item(), common, at), r.min(), r.max());
            default -> n;
        };
    }

    private static Map<String, Def> commonDefs;

    private static synchronized Map<String, Def> common() {
        if (commonDefs == null) {
            LarkGrammar g = new LarkGrammar(COMMON + "start: INT\n");
            g.parse();
            commonDefs = Map.copyOf(g.defs);
        }
        return commonDefs;
    }

    /** Alternatives, each maybe with an alias; a line starting with '|' continues them. */
    private LarkNode expansions() {
        List<LarkNode> alternatives = new ArrayList<>();
        alternatives.add(alias());
        while (true) {
            int save = pos;
            blanks();
            if (peek() == '|') {
                pos++;
                alternatives.add(alias());
                continue;
            }
            if (peek() == '\n' && depth == 0) {
                blankLines();
                if (peek() == '|') {
                    pos++;
                    alternatives.add(alias());
                    continue;
                }
            }
            pos = save;
            break;
        }
        return alternatives.size() == 1 ? alternatives.getFirst() : new Alt(alternatives);
    }

    private LarkNode alias() {
        LarkNode seq = expansion();
        blanks();
        if (src.startsWith("->", pos)) {
            pos += 2; // names the tree node: no effect on the language
            blanks();
            name();
        }
        return seq;
    }

    private LarkNode expansion() {
        List<LarkNode> items = new ArrayList<>();
        while (true) {
            blanks();
            char c = peek();
            if (eof() || c == ')' || c == ']' || c == '|' || c == '\n' || src.startsWith("->", pos)) {
                break;
            }
            items.add(expr());
        }
        return items.size() == 1 ? items.getFirst() : new Seq(items);
    }

    private LarkNode expr() {
        LarkNode atom = atom();
        char c = peek();
        if (c == '?' || c == '*' || c == '+') {
            pos++;
            return new Rep(atom, c == '+' ? 1 : 0, c == '?' ? 1 : -1);
        }
        int save = pos;
        blanks();
        if (peek() == '~') {
            int at = pos;
            pos++;
            blanks();
            int min = number();
            int max = min;
            if (src.startsWith("..", pos)) {
                pos += 2;
                max = number();
            }
            if (max < min) {
                throw error(at, "'~ " + min + ".." + max + "': the maximum is less than the minimum");
            }
            if (max > GbnfGrammar.MAX_REPETITIONS) {
                throw error(
                        at,
                        "'~' repeats " + max + " times, over the limit of " + GbnfGrammar.MAX_REPETITIONS
                                + " repetitions a grammar can enforce");
            }
            return new Rep(atom, min, max);
        }
        pos = save;
        return atom;
    }

    private int number() {
        int start = pos;
        while (Character.isDigit(peek())) {
            pos++;
        }
        if (start == pos || pos - start > 9) {
            throw error(start, "expected a repetition count");
        }
        return Integer.parseInt(src.substring(start, pos));
    }

    private LarkNode atom() {
        int start = pos;
        char c = peek();
        if (c == '(' || c == '[') {
            if (depth >= GbnfGrammar.MAX_NESTING) {
                throw error(pos, "groups nest more than " + GbnfGrammar.MAX_NESTING + " deep");
            }
            pos++;
            depth++;
            LarkNode inner = expansions();
            blanks();
            char close = c == '(' ? ')' : ']';
            if (peek() != close) {
                throw error(
                        pos,
                        "expected '" + close + "'"
                                + (eof() ? " before the end of the grammar" : ", found '" + peek() + "'"));
            }
            depth--;
            pos++;
            return c == '(' ? inner : new Rep(inner, 0, 1);
        }
        if (c == '"') {
            String text = literal();
            if (peek() == 'i' && !Character.isLetterOrDigit(pos + 1 < src.length() ? src.charAt(pos + 1) : ' ')) {
                pos++;
                return new Lit(text, true);
            }
            if (src.startsWith("..", pos)) {
                pos += 2;
                int at = pos;
                if (peek() != '"') {
                    throw error(at, "a range ('..') needs a literal on each side");
                }
                String to = literal();
                if (text.codePointCount(0, text.length()) != 1 || to.codePointCount(0, to.length()) != 1) {
                    throw error(start, "a range ('..') joins two one-character literals");
                }
                if (to.codePointAt(0) < text.codePointAt(0)) {
                    throw error(start, "the range \"" + text + "\"..\"" + to + "\" is empty");
                }
                return new Range(text.codePointAt(0), to.codePointAt(0));
            }
            return new Lit(text, false);
        }
        if (c == '/') {
            return regex();
        }
        if (c == '_' || Character.isLetter(c)) {
            String name = name();
            if (peek() == '{') {
                throw error(pos, "rule templates (" + name + "{...}) are not supported");
            }
            return new Ref(name, start);
        }
        if (eof()) {
            throw error(pos, "unexpected end of the grammar");
        }
        throw error(pos, "unexpected '" + c + "'" + (c == '%' ? " (a directive starts its own line)" : ""));
    }

    /** A Python-style string literal: the text it stands for. */
    private String literal() {
        int start = pos;
        pos++;
        StringBuilder sb = new StringBuilder();
        while (true) {
            char c = nextOnLine(start, "the string literal");
            if (c == '"') {
                return sb.toString();
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (eof()) {
                throw error(start, "the string literal is not closed on its line");
            }
            char e = src.charAt(pos++);
            int hex = JsonStringText.hexDigits(e);
            if (hex > 0) {
                if (pos + hex > src.length()
                        || !src.substring(pos, pos + hex).chars().allMatch(d -> Character.digit(d, 16) >= 0)) {
                    throw error(pos, "'\\" + e + "' needs " + hex + " hex digits");
                }
                int cp = Integer.parseInt(src.substring(pos, pos + hex), 16);
                if (!Character.isValidCodePoint(cp)) {
                    throw error(pos, "'\\" + e + src.substring(pos, pos + hex) + "' is not a character");
                }
                sb.appendCodePoint(cp);
                pos += hex;
                continue;
            }
            switch (e) {
                case 'n' -> sb.append('\n');
                case 't' -> sb.append('\t');
                case 'r' -> sb.append('\r');
                case 'f' -> sb.append('\f');
                case 'b' -> sb.append('\b');
                case 'v' -> sb.append('\u000B');
                case '0' -> sb.append('\0');
                case '\\', '"', '\'' -> sb.append(e);
                default -> sb.append('\\').append(e); // Python keeps an unknown escape as written
            }
        }
    }

    /** The next character of a token opened at {@code start} that must close on its line. */
    private char nextOnLine(int start, String token) {
        if (eof() || peek() == '\n') {
            throw error(start, token + " is not closed on its line");
        }
        return src.charAt(pos++);
    }

    private LarkNode regex() {
        int start = pos;
        pos++;
        StringBuilder sb = new StringBuilder();
        while (true) {
            char c = nextOnLine(start, "the regular expression");
            if (c == '/') {
                break;
            }
            if (c == '\\' && peek() == '/') {
                sb.append('/'); // Lark's escape of the delimiter
                pos++;
            } else if (c == '\\' && !eof() && peek() != '\n') {
                sb.append(c).append(src.charAt(pos++));
            } else {
                sb.append(c);
            }
        }
        int flags = pos;
        while (!eof() && "imslux".indexOf(peek()) >= 0) {
            pos++;
        }
        if (flags != pos) {
            throw error(flags, "regular-expression flags ('/.../" + src.substring(flags, pos) + "') are not supported");
        }
        return new Re(sb.toString(), start);
    }
}
