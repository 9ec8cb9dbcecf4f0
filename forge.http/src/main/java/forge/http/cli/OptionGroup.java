package forge.http.cli;

import java.util.function.Function;
import java.util.function.Supplier;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * A group of {@code forge serve}'s flags that checks its own values: what it refuses is a
 * parameter error of the command it is mixed into, naming the flag.
 */
abstract class OptionGroup {

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    /** A parameter error of the command, saying {@code message}. */
    final ParameterException invalid(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    /** {@code text} parsed by {@code parser}; a wrong spelling is a parameter error naming {@code flag}. */
    final <T> T parse(String flag, Function<String, T> parser, String text) {
        try {
            return parser.apply(text);
        } catch (IllegalArgumentException e) {
            throw invalid(flag + ": " + e.getMessage());
        }
    }

    /**
     * {@code text} as a whole number of at least {@code min}; anything else is a parameter error
     * with {@code error} as its message.
     */
    final int atLeast(int min, String text, String error) {
        try {
            int n = Integer.parseInt(text.strip());
            if (n >= min) {
                return n;
            }
        } catch (NumberFormatException e) {
            // not a number: the same error as one below min
        }
        throw invalid(error);
    }

    /**
     * What {@code value} gives; a setting it refuses ({@link IllegalArgumentException}) becomes a
     * parameter error with its message.
     */
    final <T> T valid(Supplier<T> value) {
        try {
            return value.get();
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
    }
}
