package forge.lib.grammar;

import forge.lib.grammar.LarkNode.Alt;
import forge.lib.grammar.LarkNode.Lit;
import forge.lib.grammar.LarkNode.Range;
import forge.lib.grammar.LarkNode.Re;
import forge.lib.grammar.LarkNode.Ref;
import forge.lib.grammar.LarkNode.Rep;
import forge.lib.grammar.LarkNode.Seq;
import forge.lib.text.Gbnf;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The second half of {@link LarkGrammar}: its parsed definitions written as GBNF rules, every one
 * named after the caller's name (several tools' rules sit in one grammar), with {@code %ignore}
 * after each terminal of a rule and direct left recursion turned into repetition, then checked by
 * {@link GbnfGrammar#check}.
 */
final class LarkEmitter {
    /** A quoted literal, a character class, or a word (group 1) of a rule body: the words name rules. */
    private static final Pattern WORD =
            Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|\\[(?:[^\\]\\\\]|\\\\.)*]|([a-zA-Z0-9-]+)");

    private final LarkGrammar grammar;
    private final JsonSchemaGrammar sink = JsonSchemaGrammar.builder();
    private final String prefix;
    private final String ignore;
    private final Map<String, String> regexRules = new HashMap<>();

    private LarkEmitter(LarkGrammar grammar, String prefix) {
        this.grammar = grammar;
        this.prefix = prefix;
        this.ignore = grammar.ignored.isEmpty() ? "" : prefix + "-0ignore";
    }

    /** A Lark name's rule: Lark names cannot start with a digit, so they never meet the rules made here. */
    private String rule(String larkName) {
        return prefix + "-" + larkName.replace('_', '-');
    }

    /** Terminals are upper case; an imported terminal's own terminals are {@code common__NAME}. */
    private boolean terminal(String larkName) {
        String n = larkName.startsWith("common__") ? larkName.substring("common__".length()) : larkName;
        return n.equals(n.toUpperCase());
    }

    private String emit(LarkNode n, boolean inRule) {
        String after = inRule && !ignore.isEmpty() ? " " + ignore : "";
        return switch (n) {
            case Lit l
            when l.caseless() -> {
                StringBuilder sb = new StringBuilder("(");
                l.text().codePoints().forEach(cp -> {
                    int lower = Character.toLowerCase(cp);
                    int upper = Character.toUpperCase(cp);
                    sb.append(sb.length() > 1 ? " " : "");
                    if (lower == upper) {
                        sb.append(Gbnf.literal(Character.toString(cp)));
                    } else {
                        sb.append('[');
                        JsonStringText.appendClassChar(sb, lower);
                        JsonStringText.appendClassChar(sb, upper);
                        sb.append(']');
                    }
                });
                yield (sb.length() == 1 ? "\"\"" : sb.append(')').toString()) + after;
            }
            case Lit l -> Gbnf.literal(l.text()) + after;
            case Range r -> {
                StringBuilder sb = new StringBuilder("[");
                JsonStringText.appendClassChar(sb, r.from());
                sb.append('-');
                JsonStringText.appendClassChar(sb, r.to());
                yield sb.append(']') + after;
            }
            case Re r -> {
                String name = regexRules.get(r.regex());
                if (name == null) {
                    try {
                        name = RegexToGbnf.text(
                                        sink,
                                        r.regex(),
                                        prefix + "-0re" + (regexRules.size() + 1),
                                        "line " + grammar.line(r.pos()))
                                .rule();
                    } catch (SchemaGrammarException e) {
                        throw grammar.error(
                                r.pos(),
                                "the regular expression /" + r.regex() + "/ cannot be enforced: " + e.getMessage());
                    }
                    regexRules.put(r.regex(), name);
                }
                yield name + after;
            }
            case Ref r -> rule(r.name()) + (terminal(r.name()) ? after : "");
            case Seq s ->
                s.items().isEmpty()
                        ? "\"\""
                        : String.join(
                                " ",
                                s.items().stream().map(i -> emit(i, inRule)).toList());
            case Alt a -> "(" + alternatives(a.alternatives(), inRule) + ")";
            case Rep r -> {
                String item = "(" + emit(r.item(), inRule) + ")";
                if (r.max() == 0) {
                    yield "\"\"";
                }
                yield item
                        + (r.min() == 0 && r.max() == 1
                                ? "?"
                                : r.min() == 0 && r.max() < 0
                                        ? "*"
                                        : r.min() == 1 && r.max() < 0
                                                ? "+"
                                                : "{" + r.min() + "," + (r.max() < 0 ? "" : Integer.toString(r.max()))
                                                        + "}");
            }
        };
    }

    private String alternatives(List<LarkNode> alternatives, boolean inRule) {
        return String.join(
                " | ", alternatives.stream().map(a -> emit(a, inRule)).toList());
    }

    /** A definition's body; direct left recursion ({@code a: a x | y}) as repetition ({@code (y) (x)*}). */
    private String body(String name, LarkNode body) {
        boolean inRule = !terminal(name);
        List<LarkNode> alternatives = body instanceof Alt a ? a.alternatives() : List.of(body);
        List<LarkNode> tails = new ArrayList<>();
        List<LarkNode> bases = new ArrayList<>();
        for (LarkNode alt : alternatives) {
            List<LarkNode> items = alt instanceof Seq s ? s.items() : List.of(alt);
            if (!items.isEmpty()
                    && items.getFirst() instanceof Ref r
                    && r.name().equals(name)) {
                tails.add(new Seq(items.subList(1, items.size())));
            } else {
                bases.add(alt);
            }
        }
        if (tails.isEmpty()) {
            return alternatives(alternatives, inRule);
        }
        if (bases.isEmpty()) {
            throw grammar.error(
                    grammar.defs.get(name).pos(), "'" + name + "' only refers to itself first: it matches no text");
        }
        return "(" + alternatives(bases, inRule) + ") (" + alternatives(tails, inRule) + ")*";
    }

    /** The rules of {@code parsed}'s definitions, all named after {@code name}, spelled as {@code encoding} says. */
    static String rules(LarkGrammar parsed, String name, LarkGrammar.Encoding encoding) {
        LarkEmitter e = new LarkEmitter(parsed, name);
        for (var d : parsed.defs.entrySet()) {
            e.sink.addRule(e.rule(d.getKey()), e.body(d.getKey(), d.getValue().body()));
        }
        if (!parsed.ignored.isEmpty()) {
            e.sink.addRule(e.ignore, "(" + e.alternatives(parsed.ignored, false) + ")*");
        }
        e.sink.addRule(name, (parsed.ignored.isEmpty() ? "" : e.ignore + " ") + e.rule("start"));
        Map<String, String> rules = new LinkedHashMap<>();
        for (String line : e.sink.build().split("\n")) {
            int sep = line.indexOf(" ::= ");
            rules.put(line.substring(0, sep), line.substring(sep + 5));
        }
        StringBuilder out = new StringBuilder();
        for (String rule : reachable(name, rules)) {
            String body = rules.get(rule);
            out.append(rule)
                    .append(" ::= ")
                    .append(encoding == LarkGrammar.Encoding.JSON_STRING ? JsonStringText.encode(body) : body)
                    .append('\n');
        }
        String grammar = out.toString();
        try {
            GbnfGrammar.check("root ::= " + name + "\n" + grammar);
        } catch (GbnfGrammar.InvalidGrammarException x) {
            throw new LarkGrammarException(
                    "the grammar",
                    x.getMessage()
                            .replace(name + "-", "")
                            .replaceFirst(
                                    "^invalid grammar( at line \\d+, column \\d+)?: ",
                                    "its GBNF translation is refused: "));
        }
        return grammar;
    }

    /** The rules {@code start} uses, itself first, in the order met. */
    private static Set<String> reachable(String start, Map<String, String> rules) {
        Set<String> seen = new LinkedHashSet<>();
        Deque<String> todo = new ArrayDeque<>(List.of(start));
        while (!todo.isEmpty()) {
            String rule = todo.removeFirst();
            if (!seen.add(rule)) {
                continue;
            }
            Matcher m = WORD.matcher(rules.get(rule));
            while (m.find()) {
                if (m.group(1) != null && rules.containsKey(m.group(1))) {
                    todo.addLast(m.group(1));
                }
            }
        }
        return seen;
    }
}
