package forge.api;

/**
 * A chat template refused a conversation (the official template would raise an error: a system
 * message for a family that takes none, roles out of order) or could not render it. The message is
 * the template's reason and is shown to the client as a 400.
 */
public class TemplateException extends ForgeException {
    public TemplateException(String message) {
        super(message);
    }

    public TemplateException(String message, Throwable cause) {
        super(message, cause);
    }
}
