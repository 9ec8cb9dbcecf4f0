package forge.template.generic.jinja;

import com.hubspot.jinjava.util.HasObjectTruthValue;

/**
 * Python's {@code None} among template values. Jinjava has one absent value, Java {@code null},
 * where Jinja2 has two that templates tell apart: {@code None} (JSON {@code null}, {@code tools}
 * when there are none, the literal {@code none}) is defined, prints {@code None} and cannot be
 * iterated; Undefined (a missing key or variable) is not defined, prints nothing and iterates as
 * empty. Here {@code null} stays Undefined and this singleton is {@code None}.
 */
public final class PyNone implements HasObjectTruthValue {

    /** The one {@code None}. */
    public static final PyNone NONE = new PyNone();

    private PyNone() {
    }

    @Override
    public boolean getObjectTruthValue() {
        return false;
    }

    @Override
    public String toString() {
        return "None";
    }
}
