package forge.api;

/**
 * The root of ForgeLM's one small exception hierarchy. Unchecked: native return codes, malformed
 * files and template errors are translated into a subclass at the boundary where they happen, so
 * callers above never see a raw status code or a closed arena.
 */
public class ForgeException extends RuntimeException {
    public ForgeException(String message) {
        super(message);
    }

    public ForgeException(String message, Throwable cause) {
        super(message, cause);
    }
}
