package forge.template.jinja;

import forge.template.jinja.Node.Expr;
import forge.template.jinja.Node.Stmt;
import forge.template.jinja.Node.Target;
import forge.template.jinja.Types.Callable;
import forge.template.jinja.Types.Markup;
import forge.template.jinja.Types.Named;
import forge.template.jinja.Types.Namespace;
import forge.template.jinja.Types.Tuple;
import forge.template.jinja.Types.Undefined;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One render: walks the shared parse tree with its own scopes, output and budgets. Jinja2's
 * scoping: a {@code for} iteration, a macro call, {@code with} and block assignments open a
 * scope whose assignments end with it (so {@code set} inside a loop never changes the variable
 * outside: templates carry state out of loops in a {@code namespace}); {@code if} opens none.
 */
final class Interpreter {

    /** What a statement list ended with: normally, or a {@code break}/{@code continue} the loop takes. */
    private static final int NORMAL = 0;

    private static final int BREAK = 1;
    private static final int CONTINUE = 2;

    final Limits limits;
    final Clock clock;
    private long steps;
    private long charged;
    private int depth;

    Interpreter(Limits limits, Clock clock) {
        this.limits = limits;
        this.clock = clock;
    }

    /** Variables of one scope, falling back to the enclosing one. */
    static final class Scope {
        private final Map<String, Object> vars;
        private final Scope parent;

        Scope(Scope parent) {
            this(parent, new HashMap<>(8));
        }

        Scope(Scope parent, Map<String, Object> vars) {
            this.parent = parent;
            this.vars = vars;
        }

        Object get(String name) {
            for (Scope s = this; s != null; s = s.parent) {
                Object v = s.vars.get(name);
                if (v != null || s.vars.containsKey(name)) {
                    return v;
                }
            }
            return Undefined.name(name);
        }

        void set(String name, Object value) {
            vars.put(name, value);
        }
    }

    /** Output with the render's bound on size, checked before each append. */
    final class Out {
        final StringBuilder sb = new StringBuilder(256);

        void append(String s, int line) {
            if (sb.length() + (long) s.length() > limits.maxOutput()) {
                throw new JinjaException("the template's output is over " + limits.maxOutput() + " characters", line);
            }
            sb.append(s);
        }
    }

    String render(List<Stmt> body, Scope scope) {
        Out out = new Out();
        exec(body, scope, out);
        return out.sb.toString();
    }

    /** Counts one step (a loop iteration, a call), failing past the render's budget. */
    void step(int line) {
        if (++steps > limits.maxSteps()) {
            throw new JinjaException("the template ran over " + limits.maxSteps() + " steps", line);
        }
    }

    /**
     * Charges the size of a value about to be built (characters of a string, items of a list)
     * against the render's budget, before it is built: a template that doubles a string or a
     * list in a loop stops here, not with the heap exhausted.
     */
    void charge(long size, int line) {
        if (size > limits.maxValue()) {
            throw new JinjaException(
                    "the template built a value of " + size + " characters or items, over the limit of "
                            + limits.maxValue(),
                    line);
        }
        charged += size;
        if (charged > limits.maxAllocation()) {
            throw new JinjaException(
                    "the template built over " + limits.maxAllocation() + " characters or items in all", line);
        }
    }

    // ---- statements

    int exec(List<Stmt> body, Scope scope, Out out) {
        for (Stmt s : body) {
            int r = exec(s, scope, out);
            if (r != NORMAL) {
                return r;
            }
        }
        return NORMAL;
    }

    private int exec(Stmt stmt, Scope scope, Out out) {
        try {
            switch (stmt) {
                case Node.Text t -> out.append(t.text(), t.line());
                case Node.Print p -> out.append(Values.str(eval(p.value(), scope)), p.line());
                case Node.If i -> {
                    for (int k = 0; k < i.tests().size(); k++) {
                        if (Values.truthy(eval(i.tests().get(k), scope))) {
                            return exec(i.bodies().get(k), scope, out);
                        }
                    }
                    return exec(i.otherwise(), scope, out);
                }
                case Node.For f -> forLoop(f, eval(f.iterable(), scope), scope, out, 0);
                case Node.Set s -> assign(s.target(), eval(s.value(), scope), scope, s.line());
                case Node.SetBlock s -> {
                    Out captured = new Out();
                    exec(s.body(), new Scope(scope), captured);
                    Object value = captured.sb.toString();
                    if (s.filter() != null) {
                        value = eval(s.filter(), holeScope(scope, value));
                    }
                    assign(s.target(), value, scope, s.line());
                }
                case Node.Macro m -> scope.set(m.name(), macro(m.name(), m.params(), m.defaults(), m.body(), scope));
                case Node.CallBlock c -> {
                    Callable caller = macro("caller", c.params(), c.defaults(), c.body(), scope);
                    Expr.Call call = c.call();
                    Object callee = eval(call.callee(), scope);
                    List<Object> args = new ArrayList<>();
                    Map<String, Object> kwargs = new LinkedHashMap<>();
                    arguments(call.args(), scope, args, kwargs);
                    kwargs.put("caller", caller);
                    out.append(Values.str(call(callee, args, kwargs, call.line())), c.line());
                }
                case Node.FilterBlock f -> {
                    Out captured = new Out();
                    exec(f.body(), new Scope(scope), captured);
                    out.append(Values.str(eval(f.filter(), holeScope(scope, captured.sb.toString()))), f.line());
                }
                case Node.With w -> {
                    Scope inner = new Scope(scope);
                    for (int k = 0; k < w.targets().size(); k++) {
                        assign(w.targets().get(k), eval(w.values().get(k), scope), inner, w.line());
                    }
                    return exec(w.body(), inner, out);
                }
                case Node.Generation g -> {
                    return exec(g.body(), scope, out);
                }
                case Node.Break b -> {
                    return BREAK;
                }
                case Node.Continue c -> {
                    return CONTINUE;
                }
            }
            return NORMAL;
        } catch (JinjaException e) {
            throw e.at(stmt.line());
        } catch (StackOverflowError e) {
            throw new JinjaException("maximum recursion depth exceeded", stmt.line());
        }
    }

    private static final String HOLE = "\u0000hole";

    private static Scope holeScope(Scope scope, Object value) {
        Scope s = new Scope(scope);
        s.set(HOLE, value);
        return s;
    }

    private void assign(Target target, Object value, Scope scope, int line) {
        switch (target) {
            case Node.NameTarget n -> scope.set(n.name(), value);
            case Node.TupleTarget t -> {
                List<?> items = unpack(value, t.items().size(), line);
                for (int k = 0; k < items.size(); k++) {
                    assign(t.items().get(k), items.get(k), scope, line);
                }
            }
            case Node.AttrTarget a -> {
                Object ns = eval(a.object(), scope);
                if (!(ns instanceof Namespace namespace)) {
                    throw new JinjaException("cannot assign attribute on non-namespace object", line);
                }
                namespace.attributes.put(a.attr(), value);
            }
        }
    }

    private List<?> unpack(Object value, int n, int line) {
        List<?> items = Values.iterate(value);
        if (items.size() > n) {
            throw new JinjaException("too many values to unpack (expected " + n + ")", line);
        }
        if (items.size() < n) {
            throw new JinjaException(
                    "not enough values to unpack (expected " + n + ", got " + items.size() + ")", line);
        }
        return items;
    }

    private void forLoop(Node.For f, Object iterable, Scope scope, Out out, int depth0) {
        List<?> all = Values.iterate(iterable);
        List<Object> items;
        if (f.filter() == null) {
            items = new ArrayList<>(all);
        } else {
            items = new ArrayList<>();
            for (Object item : all) {
                step(f.line());
                Scope test = new Scope(scope);
                assign(f.target(), item, test, f.line());
                if (Values.truthy(eval(f.filter(), test))) {
                    items.add(item);
                }
            }
        }
        if (items.isEmpty()) {
            exec(f.otherwise(), scope, out);
            return;
        }
        Loop loop = new Loop(
                items,
                depth0,
                f.recursive()
                        ? (in, args, kwargs, line) -> {
                            if (args.size() != 1) {
                                throw new JinjaException("loop() takes exactly one argument", line);
                            }
                            Out inner = new Out();
                            forLoop(f, args.getFirst(), scope, inner, depth0 + 1);
                            return inner.sb.toString();
                        }
                        : null);
        for (int k = 0; k < items.size(); k++) {
            step(f.line());
            loop.index0 = k;
            Scope iteration = new Scope(scope);
            assign(f.target(), items.get(k), iteration, f.line());
            iteration.set("loop", loop);
            if (exec(f.body(), iteration, out) == BREAK) {
                break;
            }
        }
    }

    /** The {@code loop} variable of a for loop. */
    static final class Loop {
        final List<Object> items;
        final int depth0;
        final Callable recurse;
        int index0;
        private Object lastChanged = new Object();

        Loop(List<Object> items, int depth0, Callable recurse) {
            this.items = items;
            this.depth0 = depth0;
            this.recurse = recurse;
        }

        Object attribute(String name) {
            int n = items.size();
            return switch (name) {
                case "index" -> (long) index0 + 1;
                case "index0" -> (long) index0;
                case "revindex" -> (long) (n - index0);
                case "revindex0" -> (long) (n - index0 - 1);
                case "first" -> index0 == 0;
                case "last" -> index0 == n - 1;
                case "length" -> (long) n;
                case "depth" -> (long) depth0 + 1;
                case "depth0" -> (long) depth0;
                case "previtem" -> index0 > 0 ? items.get(index0 - 1) : new Undefined("there is no previous item");
                case "nextitem" -> index0 < n - 1 ? items.get(index0 + 1) : new Undefined("there is no next item");
                case "cycle" ->
                    new Named("cycle", (in, args, kwargs, line) -> {
                        if (args.isEmpty()) {
                            throw new JinjaException("no items for cycling given", line);
                        }
                        return args.get(index0 % args.size());
                    });
                case "changed" ->
                    new Named("changed", (in, args, kwargs, line) -> {
                        Object now = new Tuple(args);
                        if (Values.eq(now, lastChanged)) {
                            return false;
                        }
                        lastChanged = now;
                        return true;
                    });
                default -> new Undefined("'LoopContext' object has no attribute '" + name + "'");
            };
        }
    }

    /** A macro: called with positional and keyword arguments, it renders its body in a scope of its own. */
    private Callable macro(String name, List<String> params, List<Expr> defaults, List<Stmt> body, Scope defined) {
        return new Named(name, (in, args, kwargs, line) -> {
            step(line);
            if (++depth > limits.maxDepth()) {
                depth = 0;
                throw new JinjaException("maximum recursion depth exceeded", line);
            }
            try {
                Scope s = new Scope(defined);
                Map<String, Object> extra = new LinkedHashMap<>(kwargs);
                for (int k = 0; k < params.size(); k++) {
                    String p = params.get(k);
                    if (k < args.size()) {
                        s.set(p, args.get(k));
                    } else if (extra.containsKey(p)) {
                        s.set(p, extra.remove(p));
                    } else if (defaults.get(k) != null) {
                        s.set(p, eval(defaults.get(k), s));
                    } else {
                        s.set(p, new Undefined("parameter '" + p + "' was not provided"));
                    }
                }
                s.set(
                        "varargs",
                        args.size() > params.size()
                                ? new ArrayList<>(args.subList(params.size(), args.size()))
                                : new ArrayList<>());
                if (extra.containsKey("caller")) {
                    s.set("caller", extra.remove("caller"));
                }
                s.set("kwargs", extra);
                Out out = new Out();
                exec(body, s, out);
                return out.sb.toString();
            } finally {
                depth--;
            }
        });
    }

    // ---- expressions

    Object eval(Expr e, Scope s) {
        try {
            return switch (e) {
                case Expr.Const c -> c.value();
                case Expr.Name n -> s.get(n.name());
                case Expr.Hole h -> s.get(HOLE);
                case Expr.GetAttr g -> Values.getattr(eval(g.object(), s), g.attr());
                case Expr.GetItem g ->
                    g.key() instanceof Expr.Slice sl
                            ? Values.slice(
                                    eval(g.object(), s), bound(sl.start(), s), bound(sl.stop(), s), bound(sl.step(), s))
                            : Values.getitem(eval(g.object(), s), eval(g.key(), s));
                case Expr.Slice sl -> throw new JinjaException("a slice outside of a subscript", sl.line());
                case Expr.ListLit l -> {
                    List<Object> out = new ArrayList<>(l.items().size());
                    for (Expr x : l.items()) {
                        out.add(eval(x, s));
                    }
                    yield out;
                }
                case Expr.TupleLit t -> {
                    Object[] out = new Object[t.items().size()];
                    for (int k = 0; k < out.length; k++) {
                        out[k] = eval(t.items().get(k), s);
                    }
                    yield new Tuple(out);
                }
                case Expr.DictLit d -> {
                    Map<Object, Object> out = new LinkedHashMap<>();
                    for (int k = 0; k < d.keys().size(); k++) {
                        out.put(
                                Values.key(eval(d.keys().get(k), s)),
                                eval(d.values().get(k), s));
                    }
                    yield out;
                }
                case Expr.Unary u -> Operators.unary(u.op(), eval(u.operand(), s));
                case Expr.Binary b -> Operators.binary(this, b.op(), eval(b.left(), s), eval(b.right(), s), b.line());
                case Expr.And a -> {
                    Object left = eval(a.left(), s);
                    yield Values.truthy(left) ? eval(a.right(), s) : left;
                }
                case Expr.Or o -> {
                    Object left = eval(o.left(), s);
                    yield Values.truthy(left) ? left : eval(o.right(), s);
                }
                case Expr.Not n -> !Values.truthy(eval(n.operand(), s));
                case Expr.Compare c -> {
                    Object left = eval(c.first(), s);
                    for (int k = 0; k < c.ops().size(); k++) {
                        Object right = eval(c.rest().get(k), s);
                        if (!Operators.compare(c.ops().get(k), left, right)) {
                            yield false;
                        }
                        left = right;
                    }
                    yield true;
                }
                case Expr.Cond c ->
                    Values.truthy(eval(c.test(), s))
                            ? eval(c.then(), s)
                            : c.otherwise() == null
                                    ? new Undefined(
                                            "the inline if-expression evaluated to false and no else section was defined.")
                                    : eval(c.otherwise(), s);
                case Expr.Concat c -> {
                    StringBuilder sb = new StringBuilder();
                    for (Expr p : c.parts()) {
                        String part = Values.str(eval(p, s));
                        charge(sb.length() + part.length(), c.line());
                        sb.append(part);
                    }
                    yield sb.toString();
                }
                case Expr.Filter f -> {
                    Object value = eval(f.value(), s);
                    List<Object> args = new ArrayList<>();
                    Map<String, Object> kwargs = new LinkedHashMap<>();
                    arguments(f.args(), s, args, kwargs);
                    yield Filters.apply(this, f.name(), value, args, kwargs, f.line());
                }
                case Expr.Test t -> {
                    if (t.name().equals("defined") || t.name().equals("undefined")) {
                        boolean defined = !(eval(t.value(), s) instanceof Undefined);
                        yield t.name().equals("defined") == defined != t.negated();
                    }
                    Object value = eval(t.value(), s);
                    List<Object> args = new ArrayList<>();
                    Map<String, Object> kwargs = new LinkedHashMap<>();
                    arguments(t.args(), s, args, kwargs);
                    yield Tests.apply(this, t.name(), value, args, kwargs, t.line()) != t.negated();
                }
                case Expr.Call c -> {
                    Object callee = eval(c.callee(), s);
                    List<Object> args = new ArrayList<>();
                    Map<String, Object> kwargs = new LinkedHashMap<>();
                    arguments(c.args(), s, args, kwargs);
                    yield call(callee, args, kwargs, c.line());
                }
            };
        } catch (JinjaException x) {
            throw x.at(e.line());
        }
    }

    private Object bound(Expr e, Scope s) {
        return e == null ? null : eval(e, s);
    }

    private void arguments(Expr.Args a, Scope s, List<Object> args, Map<String, Object> kwargs) {
        for (Expr x : a.positional()) {
            args.add(eval(x, s));
        }
        if (a.star() != null) {
            args.addAll(Values.iterate(eval(a.star(), s)));
        }
        for (int k = 0; k < a.names().size(); k++) {
            kwargs.put(a.names().get(k), eval(a.named().get(k), s));
        }
        if (a.starStar() != null && eval(a.starStar(), s) instanceof Map<?, ?> m) {
            m.forEach((k, v) -> kwargs.put(String.valueOf(k), v));
        }
    }

    Object call(Object callee, List<Object> args, Map<String, Object> kwargs, int line) {
        if (callee instanceof Callable c) {
            return c.call(this, args, kwargs, line);
        }
        if (callee instanceof Loop loop && loop.recurse != null) {
            return loop.recurse.call(this, args, kwargs, line);
        }
        if (callee instanceof Undefined u) {
            throw new JinjaException(u.hint(), line);
        }
        throw new JinjaException("'" + Values.typeName(callee) + "' object is not callable", line);
    }

    /** A template value's text where the template prints it: Markup and plain strings alike. */
    static String text(Object v) {
        return v instanceof Markup m ? m.text() : Values.str(v);
    }
}
