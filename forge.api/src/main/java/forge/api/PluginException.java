package forge.api;

/** A plugin could not be loaded or created; the runtime logs it, skips the plugin and goes on. */
public class PluginException extends ForgeException {
    public PluginException(String message) {
        super(message);
    }

    public PluginException(String message, Throwable cause) {
        super(message, cause);
    }
}
