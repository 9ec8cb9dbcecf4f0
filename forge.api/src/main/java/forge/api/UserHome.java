package forge.api;

import java.nio.file.Path;
import java.util.Map;

/**
 * The user's home folder, {@code ~}: {@code HOME} of the environment, as Ollama, the Hugging Face
 * hub, LM Studio and the shell resolve it.
 *
 * <p>Not Java's {@code user.home}: the JVM reads that from the password file and ignores
 * {@code HOME}, so a user (or a test, or a container) that points {@code HOME} elsewhere would
 * still get the password file's home. {@code user.home} is only the fallback when {@code HOME} is
 * unset or blank.
 */
public final class UserHome {

    private UserHome() {}

    /** {@code ~} of this process's environment. */
    public static Path get() {
        return of(System.getenv());
    }

    /** {@code ~} of {@code environment}: its {@code HOME}, else Java's {@code user.home}. */
    public static Path of(Map<String, String> environment) {
        String home = environment.get("HOME");
        if (home == null || home.isBlank()) {
            home = System.getProperty("user.home", "");
        }
        return Path.of(home).toAbsolutePath();
    }

    /** {@code text} with a leading {@code ~} or {@code ~/} replaced by {@code home}. */
    public static Path expand(String text, Path home) {
        if (text.equals("~")) {
            return home;
        }
        if (text.startsWith("~/")) {
            return home.resolve(text.substring(2));
        }
        return Path.of(text);
    }
}
