package forge.template.jinja;

import forge.template.jinja.Node.Stmt;
import forge.template.jinja.Types.Named;
import forge.template.jinja.Types.Namespace;
import java.time.Clock;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A compiled Jinja template, rendered as transformers' {@code apply_chat_template} renders
 * one: Jinja2's {@code ImmutableSandboxedEnvironment} with {@code trim_blocks},
 * {@code lstrip_blocks}, {@code loopcontrols}, the {@code generation} tag, transformers'
 * {@code tojson}, {@code raise_exception} and {@code strftime_now}.
 *
 * <p>Context values are plain Java values: {@link Map} (a dict, iterated in its order),
 * {@link List}, {@link String}, {@link Boolean}, integral numbers (ints), {@link Double} or
 * {@link Float} (floats), and {@code null}, which is Python's {@code None}. A name the context
 * does not hold is Jinja2's Undefined. Templates reach no Java object: attribute access is
 * Python's on those values, nothing else.
 *
 * <p>Immutable and thread-safe: compile once, render concurrently.
 */
public final class Template {

    private final List<Stmt> body;
    private final Limits limits;
    private final Clock clock;

    private Template(List<Stmt> body, Limits limits, Clock clock) {
        this.body = body;
        this.limits = limits;
        this.clock = clock;
    }

    /**
     * Parses {@code source}.
     *
     * @throws JinjaException when it does not parse, with Jinja2's message and the line
     */
    public static Template compile(String source) {
        return new Template(Parser.parse(source), Limits.DEFAULT, Clock.systemDefaultZone());
    }

    /** The same template under other bounds. */
    public Template withLimits(Limits limits) {
        return new Template(body, limits, clock);
    }

    /** The same template with the clock {@code strftime_now} reads (tests fix it). */
    public Template withClock(Clock clock) {
        return new Template(body, limits, clock);
    }

    /**
     * Renders with {@code context}'s variables (see the class comment).
     *
     * @throws JinjaException when the template raises (its {@code raise_exception} message, see
     *     {@link JinjaException#raised()}), fails as Python would, or passes a bound
     */
    public String render(Map<String, ?> context) {
        Interpreter in = new Interpreter(limits, clock);
        Interpreter.Scope globals = new Interpreter.Scope(null, globals(clock));
        Interpreter.Scope root = new Interpreter.Scope(globals, new HashMap<>(context));
        try {
            return in.render(body, new Interpreter.Scope(root));
        } catch (JinjaException e) {
            throw e;
        } catch (RuntimeException e) {
            // a value the engine has no rule for (a caller's own Java object, say): the template's fault, worded so
            throw new JinjaException("the template used a value in a way this engine does not support", 0, false, e);
        }
    }

    private static Map<String, Object> globals(Clock clock) {
        Map<String, Object> g = new HashMap<>();
        g.put("range", new Named("range", (in, a, k, line) -> range(in, a, line)));
        g.put("namespace", new Named("namespace", (in, a, k, line) -> {
            Namespace ns = new Namespace();
            for (Object x : a) {
                if (x instanceof Map<?, ?> m) {
                    m.forEach((key, v) -> ns.attributes.put(Values.str(key), v));
                }
            }
            ns.attributes.putAll(k);
            return ns;
        }));
        g.put("dict", new Named("dict", (in, a, k, line) -> {
            Map<Object, Object> d = new LinkedHashMap<>();
            if (!a.isEmpty() && a.getFirst() instanceof Map<?, ?> m) {
                d.putAll(m);
            }
            d.putAll(k);
            return d;
        }));
        g.put("raise_exception", new Named("raise_exception", (in, a, k, line) -> {
            throw new JinjaException(a.isEmpty() ? "" : Values.str(a.getFirst()), line, true);
        }));
        g.put(
                "strftime_now",
                new Named(
                        "strftime_now",
                        (in, a, k, line) -> Strftime.format(
                                LocalDateTime.now(in.clock), a.isEmpty() ? "" : Values.str(a.getFirst()))));
        return g;
    }

    /** The sandbox's {@code range}: at most 100,000 items (Jinja2's {@code MAX_RANGE}), counted before the list exists. */
    private static List<Object> range(Interpreter in, List<Object> a, int line) {
        long start = 0;
        long stop;
        long step = 1;
        if (a.size() == 1) {
            stop = Filters.number(a.getFirst());
        } else if (a.size() == 2 || a.size() == 3) {
            start = Filters.number(a.get(0));
            stop = Filters.number(a.get(1));
            step = a.size() == 3 ? Filters.number(a.get(2)) : 1;
        } else {
            throw JinjaException.python("range expected at most 3 arguments, got " + a.size());
        }
        if (step == 0) {
            throw JinjaException.python("range() arg 3 must not be zero");
        }
        long n = step > 0
                ? (stop > start ? (stop - start + step - 1) / step : 0)
                : (start > stop ? (start - stop - step - 1) / -step : 0);
        if (n > 100_000) {
            throw JinjaException.python("Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
        }
        in.charge(n, line);
        List<Object> out = new ArrayList<>((int) n);
        for (long i = 0; i < n; i++) {
            out.add(start + i * step);
        }
        return out;
    }
}
