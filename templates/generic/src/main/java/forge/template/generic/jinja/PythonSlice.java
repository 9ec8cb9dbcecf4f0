package forge.template.generic.jinja;

import com.hubspot.jinjava.objects.SafeString;
import java.util.ArrayList;
import java.util.List;
import jinjava.de.odysseus.el.tree.Bindings;
import jinjava.de.odysseus.el.tree.impl.ast.AstNode;
import jinjava.de.odysseus.el.tree.impl.ast.AstRightValue;
import jinjava.javax.el.ELContext;

/**
 * {@code base[start:stop:step]} with Python's semantics: any part may be left out, negative
 * indices count from the end, bounds clamp, a negative step walks backwards ({@code [::-1]}).
 * Strings slice into strings, lists into lists.
 */
final class PythonSlice extends AstRightValue {

    private final AstNode base;
    private final AstNode start;
    private final AstNode stop;
    private final AstNode step;

    PythonSlice(AstNode base, AstNode start, AstNode stop, AstNode step) {
        this.base = base;
        this.start = start;
        this.stop = stop;
        this.step = step;
    }

    @Override
    public Object eval(Bindings bindings, ELContext context) {
        Object b = base.eval(bindings, context);
        Long from = index(start, bindings, context);
        Long to = index(stop, bindings, context);
        Long by = index(step, bindings, context);
        long s = by == null ? 1 : by;
        if (s == 0) {
            throw new PythonValues.PythonError("slice step cannot be zero");
        }
        return switch (b) {
            case null -> null;
            case String text -> slice(text, from, to, s);
            case SafeString text -> slice(text.toString(), from, to, s);
            case List<?> list -> {
                int[] at = indices(list.size(), from, to, s);
                List<Object> out = new ArrayList<>(at.length);
                for (int i : at) {
                    out.add(list.get(i));
                }
                yield out;
            }
            default -> throw new PythonValues.PythonError("'" + PythonValues.typeName(b) + "' object is not subscriptable");
        };
    }

    private static String slice(String text, Long from, Long to, long step) {
        int[] cps = text.codePoints().toArray();
        StringBuilder sb = new StringBuilder();
        for (int i : indices(cps.length, from, to, step)) {
            sb.appendCodePoint(cps[i]);
        }
        return sb.toString();
    }

    /** The positions {@code slice(from, to, step).indices(length)} visits. */
    static int[] indices(int length, Long from, Long to, long step) {
        long lo;
        long hi;
        if (step > 0) {
            lo = from == null ? 0 : clamp(from < 0 ? from + length : from, 0, length);
            hi = to == null ? length : clamp(to < 0 ? to + length : to, 0, length);
            if (hi <= lo) {
                return new int[0];
            }
            int[] out = new int[(int) ((hi - lo + step - 1) / step)];
            for (int k = 0; k < out.length; k++) {
                out[k] = (int) (lo + k * step);
            }
            return out;
        }
        lo = from == null ? length - 1 : clamp(from < 0 ? from + length : from, -1, length - 1);
        hi = to == null ? -1 : clamp(to < 0 ? to + length : to, -1, length - 1);
        if (lo <= hi) {
            return new int[0];
        }
        int[] out = new int[(int) ((lo - hi - step - 1) / -step)];
        for (int k = 0; k < out.length; k++) {
            out[k] = (int) (lo + k * step);
        }
        return out;
    }

    private static long clamp(long v, long min, long max) {
        return Math.max(min, Math.min(max, v));
    }

    private static Long index(AstNode node, Bindings bindings, ELContext context) {
        if (node == null) {
            return null;
        }
        Object v = node.eval(bindings, context);
        return switch (v) {
            case null -> null;
            case PyNone n -> null;
            case Boolean b -> b ? 1L : 0L;
            case Long l -> l;
            case Integer i -> (long) i;
            case Number n when n.doubleValue() == Math.rint(n.doubleValue()) && !(n instanceof Double) -> n.longValue();
            default -> throw new PythonValues.PythonError("slice indices must be integers or None or have an __index__ method");
        };
    }

    @Override
    public void appendStructure(StringBuilder sb, Bindings bindings) {
        base.appendStructure(sb, bindings);
        sb.append('[');
        if (start != null) {
            start.appendStructure(sb, bindings);
        }
        sb.append(':');
        if (stop != null) {
            stop.appendStructure(sb, bindings);
        }
        if (step != null) {
            sb.append(':');
            step.appendStructure(sb, bindings);
        }
        sb.append(']');
    }

    @Override
    public String toString() {
        return "[::]";
    }

    @Override
    public int getCardinality() {
        return 1 + (start == null ? 0 : 1) + (stop == null ? 0 : 1) + (step == null ? 0 : 1);
    }

    @Override
    public AstNode getChild(int i) {
        List<AstNode> children = new ArrayList<>(4);
        children.add(base);
        for (AstNode n : new AstNode[] {start, stop, step}) {
            if (n != null) {
                children.add(n);
            }
        }
        return children.get(i);
    }
}
