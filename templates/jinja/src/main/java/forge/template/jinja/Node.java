package forge.template.jinja;

import java.util.List;

/**
 * The parse tree: statements that write output and expressions that yield values, each with the
 * template line it starts on (errors name it). Immutable, so one compiled template serves every
 * render at once.
 */
sealed interface Node {

    int line();

    // ---- statements

    sealed interface Stmt extends Node {}

    record Text(String text, int line) implements Stmt {}

    record Print(Expr value, int line) implements Stmt {}

    record If(List<Expr> tests, List<List<Stmt>> bodies, List<Stmt> otherwise, int line) implements Stmt {}

    record For(
            Target target,
            Expr iterable,
            Expr filter,
            List<Stmt> body,
            List<Stmt> otherwise,
            boolean recursive,
            int line)
            implements Stmt {}

    record Set(Target target, Expr value, int line) implements Stmt {}

    /** {@code {% set x %}...{% endset %}}, its output optionally filtered ({@code filter} applies to {@link Hole}). */
    record SetBlock(Target target, Expr filter, List<Stmt> body, int line) implements Stmt {}

    record Macro(String name, List<String> params, List<Expr> defaults, List<Stmt> body, int line) implements Stmt {}

    /** {@code {% call(params) macro(args) %}body{% endcall %}}: the body is the macro's {@code caller}. */
    record CallBlock(Expr.Call call, List<String> params, List<Expr> defaults, List<Stmt> body, int line)
            implements Stmt {}

    record FilterBlock(Expr filter, List<Stmt> body, int line) implements Stmt {}

    record With(List<Target> targets, List<Expr> values, List<Stmt> body, int line) implements Stmt {}

    /** transformers' {@code {% generation %}}: marks the assistant's tokens for masks; renders its body unchanged. */
    record Generation(List<Stmt> body, int line) implements Stmt {}

    record Break(int line) implements Stmt {}

    record Continue(int line) implements Stmt {}

    // ---- assignment targets

    sealed interface Target extends Node {}

    record NameTarget(String name, int line) implements Target {}

    record TupleTarget(List<Target> items, int line) implements Target {}

    /** {@code {% set ns.attr = v %}}: only a namespace takes it. */
    record AttrTarget(Expr object, String attr, int line) implements Target {}

    // ---- expressions

    sealed interface Expr extends Node {

        record Const(Object value, int line) implements Expr {}

        record Name(String name, int line) implements Expr {}

        /** The value a filter block or filtered set block applies its filters to. */
        record Hole(int line) implements Expr {}

        record GetAttr(Expr object, String attr, int line) implements Expr {}

        record GetItem(Expr object, Expr key, int line) implements Expr {}

        record Slice(Expr start, Expr stop, Expr step, int line) implements Expr {}

        record ListLit(List<Expr> items, int line) implements Expr {}

        record TupleLit(List<Expr> items, int line) implements Expr {}

        record DictLit(List<Expr> keys, List<Expr> values, int line) implements Expr {}

        record Unary(String op, Expr operand, int line) implements Expr {}

        record Binary(String op, Expr left, Expr right, int line) implements Expr {}

        record And(Expr left, Expr right, int line) implements Expr {}

        record Or(Expr left, Expr right, int line) implements Expr {}

        record Not(Expr operand, int line) implements Expr {}

        /** Python's chained comparison: {@code a < b < c}. */
        record Compare(Expr first, List<String> ops, List<Expr> rest, int line) implements Expr {}

        record Cond(Expr test, Expr then, Expr otherwise, int line) implements Expr {}

        record Concat(List<Expr> parts, int line) implements Expr {}

        record Args(List<Expr> positional, List<String> names, List<Expr> named, Expr star, Expr starStar) {
            static final Args NONE = new Args(List.of(), List.of(), List.of(), null, null);
        }

        record Filter(Expr value, String name, Args args, int line) implements Expr {}

        record Test(Expr value, String name, Args args, boolean negated, int line) implements Expr {}

        record Call(Expr callee, Args args, int line) implements Expr {}
    }
}
