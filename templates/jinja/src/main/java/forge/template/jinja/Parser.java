package forge.template.jinja;

import forge.template.jinja.Lexer.Kind;
import forge.template.jinja.Lexer.Token;
import forge.template.jinja.Node.Expr;
import forge.template.jinja.Node.Stmt;
import forge.template.jinja.Node.Target;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Jinja2's grammar ({@code jinja2/parser.py}), precedence for precedence: conditional
 * expressions, {@code or}, {@code and}, {@code not}, comparisons (chained, {@code in},
 * {@code not in}), {@code + -}, {@code ~}, {@code * / // %}, {@code **} (left-associative, as
 * Jinja2 has it), unary {@code - +}, then postfix ({@code .attr}, {@code [key]}, calls) and the
 * filter chain ({@code |f}, {@code is test}, calls), so {@code -x|abs} is {@code (-x)|abs} and
 * {@code not x is none} is {@code not (x is none)}. The tags are those transformers' environment
 * knows: Jinja2's built-ins without a loader ({@code include}, {@code import}, {@code extends}
 * have nothing to load), {@code break}/{@code continue} (loopcontrols) and {@code generation}.
 */
final class Parser {

    private static final Set<String> COMPARE = Set.of("==", "!=", "<", "<=", ">", ">=");

    private final List<Token> tokens;
    private int at;

    private Parser(List<Token> tokens) {
        this.tokens = tokens;
    }

    static List<Stmt> parse(String source) {
        Parser p = new Parser(Lexer.tokenize(source));
        List<Stmt> body = p.body(Set.of());
        if (p.peek().kind() != Kind.EOF) {
            Token t = p.peek();
            throw new JinjaException("Encountered unknown tag '" + p.peek(1).text() + "'.", t.line());
        }
        return body;
    }

    // ---- token helpers

    private Token peek() {
        return tokens.get(at);
    }

    private Token peek(int ahead) {
        return tokens.get(Math.min(at + ahead, tokens.size() - 1));
    }

    private Token next() {
        Token t = tokens.get(at);
        if (t.kind() != Kind.EOF) {
            at++;
        }
        return t;
    }

    private boolean skipOp(String op) {
        return skip(Kind.OP, op);
    }

    private boolean skipName(String name) {
        return skip(Kind.NAME, name);
    }

    /** Whether the next token is {@code text} of {@code kind}, which it then consumes. */
    private boolean skip(Kind kind, String text) {
        if (peek().is(kind, text)) {
            at++;
            return true;
        }
        return false;
    }

    private Token expectOp(String op) {
        if (!peek().isOp(op)) {
            throw unexpected("'" + op + "'");
        }
        return next();
    }

    private String expectName() {
        if (peek().kind() != Kind.NAME) {
            throw unexpected("a name");
        }
        return next().text();
    }

    private void expect(Kind kind) {
        if (peek().kind() != kind) {
            throw unexpected(
                    kind == Kind.BLOCK_END
                            ? "end of statement block"
                            : kind == Kind.VAR_END ? "end of print statement" : kind.name());
        }
        next();
    }

    private JinjaException unexpected(String wanted) {
        Token t = peek();
        String got = switch (t.kind()) {
            case EOF -> "end of template";
            case BLOCK_END -> "end of statement block";
            case VAR_END -> "end of print statement";
            case STRING -> "string";
            case INT -> "integer";
            case FLOAT -> "float";
            default -> "'" + t.text() + "'";
        };
        return new JinjaException("expected " + wanted + ", got " + got, t.line());
    }

    // ---- statements

    /** Statements up to a block tag named in {@code ends} (left unconsumed) or the end of the template. */
    private List<Stmt> body(Set<String> ends) {
        List<Stmt> out = new ArrayList<>();
        while (true) {
            Token t = peek();
            switch (t.kind()) {
                case EOF -> {
                    if (!ends.isEmpty()) {
                        String wanted =
                                ends.stream().sorted().map(e -> "'" + e + "'").collect(Collectors.joining(" or "));
                        throw new JinjaException(
                                "Unexpected end of template. Jinja was looking for the following tags: " + wanted + ".",
                                t.line());
                    }
                    return out;
                }
                case TEXT -> out.add(new Node.Text(next().text(), t.line()));
                case VAR_BEGIN -> {
                    next();
                    Expr e = tuple(true, Set.of());
                    expect(Kind.VAR_END);
                    out.add(new Node.Print(e, t.line()));
                }
                case BLOCK_BEGIN -> {
                    Token name = peek(1);
                    if (name.kind() == Kind.NAME && ends.contains(name.text())) {
                        return out;
                    }
                    next();
                    out.add(statement());
                }
                default -> throw unexpected("template data");
            }
        }
    }

    /** The statements up to the block tag {@code {% name %}}, and that tag. */
    private List<Stmt> bodyUpTo(String name) {
        List<Stmt> body = body(Set.of(name));
        end(name);
        return body;
    }

    /** The block tag named {@code name} that closes a body: {@code {% name %}}. */
    private void end(String name) {
        expect(Kind.BLOCK_BEGIN);
        if (!skipName(name)) {
            throw unexpected("'" + name + "'");
        }
        expect(Kind.BLOCK_END);
    }

    private Stmt statement() {
        Token t = peek();
        if (t.kind() != Kind.NAME) {
            throw new JinjaException("tag name expected", t.line());
        }
        int line = t.line();
        String name = next().text();
        return switch (name) {
            case "for" -> forLoop(line);
            case "if" -> ifChain(line);
            case "set" -> set(line);
            case "macro" -> macro(line);
            case "call" -> callBlock(line);
            case "filter" -> filterBlock(line);
            case "with" -> with(line);
            case "generation" -> {
                expect(Kind.BLOCK_END);
                yield new Node.Generation(bodyUpTo("endgeneration"), line);
            }
            case "break" -> {
                expect(Kind.BLOCK_END);
                yield new Node.Break(line);
            }
            case "continue" -> {
                expect(Kind.BLOCK_END);
                yield new Node.Continue(line);
            }
            default -> throw new JinjaException("Encountered unknown tag '" + name + "'.", line);
        };
    }

    private Stmt forLoop(int line) {
        Target target = assignTarget(true);
        if (!skipName("in")) {
            throw unexpected("'in'");
        }
        Expr iterable = tuple(false, Set.of("recursive"));
        Expr filter = null;
        if (skipName("if")) {
            filter = expression(true);
        }
        boolean recursive = skipName("recursive");
        expect(Kind.BLOCK_END);
        List<Stmt> body = body(Set.of("endfor", "else"));
        List<Stmt> otherwise = List.of();
        if (peek(1).isName("else")) {
            next();
            next();
            expect(Kind.BLOCK_END);
            otherwise = body(Set.of("endfor"));
        }
        end("endfor");
        return new Node.For(target, iterable, filter, body, otherwise, recursive, line);
    }

    private Stmt ifChain(int line) {
        List<Expr> tests = new ArrayList<>();
        List<List<Stmt>> bodies = new ArrayList<>();
        List<Stmt> otherwise = List.of();
        tests.add(tuple(false, Set.of()));
        expect(Kind.BLOCK_END);
        while (true) {
            bodies.add(body(Set.of("elif", "else", "endif")));
            next(); // {%
            String tag = next().text();
            if (tag.equals("elif")) {
                tests.add(tuple(false, Set.of()));
                expect(Kind.BLOCK_END);
            } else if (tag.equals("else")) {
                expect(Kind.BLOCK_END);
                otherwise = body(Set.of("endif"));
                end("endif");
                break;
            } else {
                expect(Kind.BLOCK_END);
                break;
            }
        }
        return new Node.If(tests, bodies, otherwise, line);
    }

    private Stmt set(int line) {
        Target target = assignTarget(false);
        if (skipOp("=")) {
            Expr value = tuple(true, Set.of());
            expect(Kind.BLOCK_END);
            return new Node.Set(target, value, line);
        }
        Expr filter = null;
        if (peek().isOp("|")) {
            filter = filters(new Expr.Hole(line));
        }
        expect(Kind.BLOCK_END);
        return new Node.SetBlock(target, filter, bodyUpTo("endset"), line);
    }

    private Stmt macro(int line) {
        String name = expectName();
        List<String> params = new ArrayList<>();
        List<Expr> defaults = new ArrayList<>();
        signature(params, defaults);
        expect(Kind.BLOCK_END);
        return new Node.Macro(name, List.copyOf(params), defaults, bodyUpTo("endmacro"), line);
    }

    /** {@code (a, b=1)}: names and the defaults of the trailing ones (null where none). */
    private void signature(List<String> params, List<Expr> defaults) {
        expectOp("(");
        while (!peek().isOp(")")) {
            if (!params.isEmpty()) {
                expectOp(",");
                if (peek().isOp(")")) {
                    break;
                }
            }
            params.add(expectName());
            if (skipOp("=")) {
                defaults.add(expression(true));
            } else {
                if (!defaults.isEmpty() && defaults.getLast() != null) {
                    throw new JinjaException("non-default argument follows default argument", peek().line());
                }
                defaults.add(null);
            }
        }
        next();
    }

    private Stmt callBlock(int line) {
        List<String> params = new ArrayList<>();
        List<Expr> defaults = new ArrayList<>();
        if (peek().isOp("(")) {
            signature(params, defaults);
        }
        Expr call = expression(true);
        if (!(call instanceof Expr.Call c)) {
            throw new JinjaException("expected call", line);
        }
        expect(Kind.BLOCK_END);
        return new Node.CallBlock(c, List.copyOf(params), defaults, bodyUpTo("endcall"), line);
    }

    private Stmt filterBlock(int line) {
        Expr filter = filters(new Expr.Hole(line), true);
        expect(Kind.BLOCK_END);
        return new Node.FilterBlock(filter, bodyUpTo("endfilter"), line);
    }

    private Stmt with(int line) {
        List<Target> targets = new ArrayList<>();
        List<Expr> values = new ArrayList<>();
        while (peek().kind() != Kind.BLOCK_END) {
            if (!targets.isEmpty()) {
                expectOp(",");
            }
            targets.add(assignTarget(false));
            expectOp("=");
            values.add(expression(true));
        }
        next();
        return new Node.With(targets, values, bodyUpTo("endwith"), line);
    }

    /** A name, {@code ns.attr} (set only), or a tuple of names ({@code a, b} or {@code (a, b)}). */
    private Target assignTarget(boolean forLoop) {
        int line = peek().line();
        List<Target> items = new ArrayList<>();
        boolean parens = skipOp("(");
        boolean comma = false;
        while (true) {
            String name = expectName();
            if (!forLoop && !parens && items.isEmpty() && peek().isOp(".")) {
                next();
                return new Node.AttrTarget(new Expr.Name(name, line), expectName(), line);
            }
            items.add(new Node.NameTarget(name, line));
            if (!skipOp(",")) {
                break;
            }
            comma = true;
            if (peek().kind() != Kind.NAME) {
                break;
            }
        }
        if (parens) {
            expectOp(")");
        }
        return items.size() == 1 && !comma ? items.getFirst() : new Node.TupleTarget(items, line);
    }

    // ---- expressions

    /** Jinja2's {@code parse_tuple}: an expression, or several separated by commas as a tuple. */
    private Expr tuple(boolean withCondition, Set<String> extraEnds) {
        int line = peek().line();
        List<Expr> items = new ArrayList<>();
        boolean comma = false;
        while (true) {
            if (!items.isEmpty()) {
                if (!skipOp(",")) {
                    break;
                }
                comma = true;
            }
            if (tupleEnds(extraEnds)) {
                break;
            }
            items.add(expression(withCondition));
        }
        if (!comma) {
            if (items.isEmpty()) {
                throw unexpected("an expression");
            }
            return items.getFirst();
        }
        return new Expr.TupleLit(List.copyOf(items), line);
    }

    private boolean tupleEnds(Set<String> extraEnds) {
        Token t = peek();
        return t.kind() == Kind.VAR_END
                || t.kind() == Kind.BLOCK_END
                || t.kind() == Kind.EOF
                || t.isOp(")")
                || t.kind() == Kind.NAME
                        && (extraEnds.contains(t.text()) || t.text().equals("if") && extraEnds.contains("recursive"));
    }

    private Expr expression(boolean withCondition) {
        return withCondition ? condition() : or();
    }

    private Expr condition() {
        Expr value = or();
        while (peek().isName("if")) {
            int line = next().line();
            Expr test = or();
            Expr otherwise = skipName("else") ? condition() : null;
            value = new Expr.Cond(test, value, otherwise, line);
        }
        return value;
    }

    private Expr or() {
        return leftToRight(
                this::and, Kind.NAME, List.of("or"), (op, left, right, line) -> new Expr.Or(left, right, line));
    }

    private Expr and() {
        return leftToRight(
                this::not, Kind.NAME, List.of("and"), (op, left, right, line) -> new Expr.And(left, right, line));
    }

    private Expr not() {
        if (peek().isName("not")) {
            int line = next().line();
            return new Expr.Not(not(), line);
        }
        return compare();
    }

    private Expr compare() {
        int line = peek().line();
        Expr first = math1();
        List<String> ops = new ArrayList<>();
        List<Expr> rest = new ArrayList<>();
        while (true) {
            Token t = peek();
            if (t.kind() == Kind.OP && COMPARE.contains(t.text())) {
                next();
                ops.add(t.text());
            } else if (t.isName("in")) {
                next();
                ops.add("in");
            } else if (t.isName("not") && peek(1).isName("in")) {
                next();
                next();
                ops.add("not in");
            } else {
                break;
            }
            rest.add(math1());
        }
        return ops.isEmpty() ? first : new Expr.Compare(first, List.copyOf(ops), List.copyOf(rest), line);
    }

    private Expr math1() {
        return leftToRight(this::concat, Kind.OP, List.of("+", "-"), Expr.Binary::new);
    }

    private Expr concat() {
        int line = peek().line();
        Expr first = math2();
        if (!peek().isOp("~")) {
            return first;
        }
        List<Expr> parts = new ArrayList<>();
        parts.add(first);
        while (skipOp("~")) {
            parts.add(math2());
        }
        return new Expr.Concat(List.copyOf(parts), line);
    }

    private Expr math2() {
        return leftToRight(this::pow, Kind.OP, List.of("*", "/", "//", "%"), Expr.Binary::new);
    }

    private Expr pow() {
        return leftToRight(() -> unary(true), Kind.OP, List.of("**"), Expr.Binary::new);
    }

    /** How one level of the precedence ladder joins two operands. */
    private interface Join {
        Expr of(String op, Expr left, Expr right, int line);
    }

    /**
     * One level of the ladder, as Jinja2's parser reads it: {@code operand}s joined left to right by
     * any of {@code ops}, tokens of {@code kind} (operators, or the words {@code or} and {@code and}).
     */
    private Expr leftToRight(Supplier<Expr> operand, Kind kind, List<String> ops, Join join) {
        Expr left = operand.get();
        while (peek().kind() == kind && ops.contains(peek().text())) {
            Token op = next();
            left = join.of(op.text(), left, operand.get(), op.line());
        }
        return left;
    }

    private Expr unary(boolean withFilter) {
        Token t = peek();
        Expr node;
        if (t.isOp("-") || t.isOp("+")) {
            next();
            node = new Expr.Unary(t.text(), unary(false), t.line());
        } else {
            node = primary();
        }
        node = postfix(node);
        return withFilter ? filters(node) : node;
    }

    private Expr primary() {
        Token t = next();
        int line = t.line();
        return switch (t.kind()) {
            case NAME ->
                switch (t.text()) {
                    case "true", "True" -> new Expr.Const(Boolean.TRUE, line);
                    case "false", "False" -> new Expr.Const(Boolean.FALSE, line);
                    case "none", "None" -> new Expr.Const(null, line);
                    default -> new Expr.Name(t.text(), line);
                };
            case STRING -> {
                StringBuilder s = new StringBuilder(t.text());
                while (peek().kind() == Kind.STRING) {
                    s.append(next().text());
                }
                yield new Expr.Const(s.toString(), line);
            }
            case INT, FLOAT -> new Expr.Const(t.value(), line);
            case OP ->
                switch (t.text()) {
                    case "(" -> {
                        Expr e = tupleInParens(line);
                        expectOp(")");
                        yield e;
                    }
                    case "[" -> {
                        List<Expr> items = new ArrayList<>();
                        commaSeparated("]", () -> items.add(expression(true)));
                        yield new Expr.ListLit(List.copyOf(items), line);
                    }
                    case "{" -> {
                        List<Expr> keys = new ArrayList<>();
                        List<Expr> values = new ArrayList<>();
                        commaSeparated("}", () -> {
                            keys.add(expression(true));
                            expectOp(":");
                            values.add(expression(true));
                        });
                        yield new Expr.DictLit(List.copyOf(keys), List.copyOf(values), line);
                    }
                    default -> {
                        at--;
                        throw unexpected("an expression");
                    }
                };
            default -> {
                at--;
                throw unexpected("an expression");
            }
        };
    }

    /**
     * Items read by {@code item}, separated by commas (a trailing one allowed), up to the operator
     * {@code close}, which it consumes; whether there was a comma.
     */
    private boolean commaSeparated(String close, Runnable item) {
        boolean first = true;
        boolean comma = false;
        while (!peek().isOp(close)) {
            if (!first) {
                expectOp(",");
                comma = true;
                if (peek().isOp(close)) {
                    break;
                }
            }
            first = false;
            item.run();
        }
        next();
        return comma;
    }

    /** Inside {@code ( )}: empty is the empty tuple, one expression without a comma is itself. */
    private Expr tupleInParens(int line) {
        if (peek().isOp(")")) {
            return new Expr.TupleLit(List.of(), line);
        }
        return tuple(true, Set.of());
    }

    private Expr postfix(Expr node) {
        while (true) {
            Token t = peek();
            if (t.isOp(".")) {
                next();
                Token attr = next();
                if (attr.kind() == Kind.NAME) {
                    node = new Expr.GetAttr(node, attr.text(), t.line());
                } else if (attr.kind() == Kind.INT) {
                    node = new Expr.GetItem(node, new Expr.Const(attr.value(), t.line()), t.line());
                } else {
                    at--;
                    throw unexpected("a name");
                }
            } else if (t.isOp("[")) {
                next();
                List<Expr> keys = new ArrayList<>();
                boolean comma = commaSeparated("]", () -> keys.add(subscript()));
                if (keys.isEmpty()) {
                    throw new JinjaException("expected subscript expression", t.line());
                }
                Expr key =
                        keys.size() == 1 && !comma ? keys.getFirst() : new Expr.TupleLit(List.copyOf(keys), t.line());
                node = new Expr.GetItem(node, key, t.line());
            } else if (t.isOp("(")) {
                node = call(node);
            } else {
                return node;
            }
        }
    }

    private Expr subscript() {
        int line = peek().line();
        Expr start = null;
        if (!peek().isOp(":")) {
            start = expression(true);
            if (!peek().isOp(":")) {
                return start;
            }
        }
        next();
        Expr stop = null;
        Expr step = null;
        if (!peek().isOp("]") && !peek().isOp(",") && !peek().isOp(":")) {
            stop = expression(true);
        }
        if (skipOp(":") && !peek().isOp("]") && !peek().isOp(",")) {
            step = expression(true);
        }
        return new Expr.Slice(start, stop, step, line);
    }

    private Expr call(Expr callee) {
        int line = expectOp("(").line();
        return new Expr.Call(callee, args(), line);
    }

    /** Call arguments after the opening parenthesis, up to and including the closing one. */
    private Expr.Args args() {
        List<Expr> positional = new ArrayList<>();
        List<String> names = new ArrayList<>();
        List<Expr> named = new ArrayList<>();
        Expr star = null;
        Expr starStar = null;
        boolean first = true;
        while (!peek().isOp(")")) {
            if (!first) {
                expectOp(",");
                if (peek().isOp(")")) {
                    break;
                }
            }
            first = false;
            if (skipOp("*")) {
                star = expression(true);
            } else if (skipOp("**")) {
                starStar = expression(true);
            } else if (peek().kind() == Kind.NAME && peek(1).isOp("=")) {
                names.add(next().text());
                next();
                named.add(expression(true));
            } else {
                if (!names.isEmpty()) {
                    throw new JinjaException("positional argument follows keyword argument", peek().line());
                }
                positional.add(expression(true));
            }
        }
        next();
        return new Expr.Args(List.copyOf(positional), List.copyOf(names), List.copyOf(named), star, starStar);
    }

    private Expr filters(Expr node) {
        return filters(node, false);
    }

    /** The chain of {@code |filter}, {@code is test} and calls after a value; {@code onlyFilters} for a filter block's head. */
    private Expr filters(Expr node, boolean onlyFilters) {
        boolean firstBare = onlyFilters;
        while (true) {
            Token t = peek();
            if (t.isOp("|") || firstBare) {
                if (!firstBare) {
                    next();
                }
                firstBare = false;
                String name = dottedName();
                Expr.Args args = skipOp("(") ? args() : Expr.Args.NONE;
                node = new Expr.Filter(node, name, args, t.line());
            } else if (!onlyFilters && t.isName("is")) {
                next();
                boolean negated = skipName("not");
                String name = dottedName();
                Expr.Args args = Expr.Args.NONE;
                Token a = peek();
                if (a.isOp("(")) {
                    next();
                    args = args();
                } else if ((a.kind() == Kind.NAME
                                || a.kind() == Kind.STRING
                                || a.kind() == Kind.INT
                                || a.kind() == Kind.FLOAT
                                || a.isOp("[")
                                || a.isOp("{"))
                        && !a.isName("else")
                        && !a.isName("or")
                        && !a.isName("and")) {
                    if (a.isName("is")) {
                        throw new JinjaException("You cannot chain multiple tests with is", a.line());
                    }
                    args = new Expr.Args(List.of(postfix(primary())), List.of(), List.of(), null, null);
                }
                node = new Expr.Test(node, name, args, negated, t.line());
            } else if (!onlyFilters && t.isOp("(")) {
                node = call(node);
            } else {
                return node;
            }
        }
    }

    private String dottedName() {
        StringBuilder name = new StringBuilder(expectName());
        while (peek().isOp(".") && peek(1).kind() == Kind.NAME) {
            next();
            name.append('.').append(next().text());
        }
        return name.toString();
    }
}
