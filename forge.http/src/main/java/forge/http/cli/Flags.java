package forge.http.cli;

import forge.api.ForgeException;
import java.time.Duration;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Supplier;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** How the option groups read a flag's text: durations, counts, and values whose errors name their flag. */
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

    /** {@code text} parsed by {@code parser}; a wrong spelling is a parameter error naming {@code flag}. */
    static <T> T parse(CommandSpec spec, String flag, Function<String, T> parser, String text) {
        try {
            return parser.apply(text);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), flag + ": " + e.getMessage());
        }
    }

    /**
     * {@code text} as a whole number of at least {@code min}; anything else is a parameter error
     * with {@code error} as its message.
     */
    static int atLeast(CommandSpec spec, int min, String text, String error) {
        try {
            int n = Integer.parseInt(text.strip());
            if (n >= min) {
                return n;
            }
        } catch (NumberFormatException e) {
            // not a number: the same error as one below min
        }
        throw new ParameterException(spec.commandLine(), error);
    }

    /**
     * What {@code value} gives; a setting it refuses ({@link IllegalArgumentException}) becomes a
     * parameter error with its message.
     */
    static <T> T valid(CommandSpec spec, Supplier<T> value) {
        try {
            return value.get();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
