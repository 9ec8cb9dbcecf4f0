package forge.template.jinja;

import forge.api.TemplateException;

/**
 * A template that does not parse, or a render that failed: the message is Jinja2's or Python's
 * own words ({@code 'NoneType' object is not iterable}), or a {@code raise_exception} message
 * as the template wrote it; {@link #line()} is the template line it happened on.
 */
public final class JinjaException extends TemplateException {

    private final int line;
    private final boolean raised;

    JinjaException(String message, int line) {
        this(message, line, false);
    }

    JinjaException(String message, int line, boolean raised) {
        super(message);
        this.line = line;
        this.raised = raised;
    }

    JinjaException(String message, int line, boolean raised, Throwable cause) {
        super(message, cause);
        this.line = line;
        this.raised = raised;
    }

    /** The template's line (1-based) where it failed, 0 when no line applies. */
    public int line() {
        return line;
    }

    /** Whether the template itself raised this, through {@code raise_exception(message)}. */
    public boolean raised() {
        return raised;
    }

    /** A failure with no line yet: the interpreter gives it the line of the node it was evaluating. */
    static JinjaException python(String message) {
        return new JinjaException(message, 0);
    }

    JinjaException at(int line) {
        return this.line != 0 || line == 0 ? this : new JinjaException(getMessage(), line, raised);
    }
}
