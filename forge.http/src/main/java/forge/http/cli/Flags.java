package forge.http.cli;

import forge.api.ForgeException;
import java.time.Duration;
import java.util.Locale;

/** How a flag's duration is read; {@link OptionGroup} reads the values whose errors are the command's. */
final class Flags {

    private Flags() {}

    /** {@code d}, when it is more than zero. */
    static Duration positive(String option, Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new ForgeException(option + ": must be more than 0: " + d.toMillis() + " ms");
        }
        return d;
    }

    /** {@code 10s}, {@code 500ms}, {@code 2m} or a number of seconds, the value of {@code option}. */
    static Duration duration(String option, String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        try {
            if (t.endsWith("ms")) {
                return Duration.ofMillis(
                        Long.parseLong(t.substring(0, t.length() - 2).strip()));
            }
            if (t.endsWith("s")) {
                return Duration.ofMillis(Math.round(
                        Double.parseDouble(t.substring(0, t.length() - 1).strip()) * 1000));
            }
            if (t.endsWith("m")) {
                return Duration.ofSeconds(Math.round(
                        Double.parseDouble(t.substring(0, t.length() - 1).strip()) * 60));
            }
            return Duration.ofMillis(Math.round(Double.parseDouble(t) * 1000));
        } catch (NumberFormatException e) {
            throw new ForgeException(option + ": not a duration such as 10s or 500ms: " + text);
        }
    }
}
