package forge.api.sampler;

import java.util.Objects;

/**
 * A typed parameter of a plugin stage: a field of the request body, checked by the host against
 * its type and range before the request is admitted (a 400 naming it otherwise).
 */
public sealed interface StageParameter {

    /** The body field, {@code <stage>_<what>}. */
    String name();

    /** One line for users. */
    String description();

    /** The value when the request does not set it, boxed ({@code Long}, {@code Double}, {@code Boolean}, {@code String}). */
    Object fallback();

    /**
     * An integer from {@code min} to {@code max}.
     *
     * @param defaultValue within the range
     */
    record Int(String name, long defaultValue, long min, long max, String description) implements StageParameter {
        public Int {
            Objects.requireNonNull(name);
            Objects.requireNonNull(description);
            if (min > max || defaultValue < min || defaultValue > max) {
                throw new IllegalArgumentException(
                        name + ": the default " + defaultValue + " is not in [" + min + ", " + max + "]");
            }
        }

        @Override
        public Object fallback() {
            return defaultValue;
        }
    }

    /** A finite number from {@code min} to {@code max}. */
    record Num(String name, double defaultValue, double min, double max, String description) implements StageParameter {
        public Num {
            Objects.requireNonNull(name);
            Objects.requireNonNull(description);
            if (!(min <= max) || !(defaultValue >= min) || !(defaultValue <= max)) {
                throw new IllegalArgumentException(
                        name + ": the default " + defaultValue + " is not in [" + min + ", " + max + "]");
            }
        }

        @Override
        public Object fallback() {
            return defaultValue;
        }
    }

    /** {@code true} or {@code false}. */
    record Bool(String name, boolean defaultValue, String description) implements StageParameter {
        public Bool {
            Objects.requireNonNull(name);
            Objects.requireNonNull(description);
        }

        @Override
        public Object fallback() {
            return defaultValue;
        }
    }

    /** A string of at most {@code maxLength} characters. */
    record Text(String name, String defaultValue, int maxLength, String description) implements StageParameter {
        public Text {
            Objects.requireNonNull(name);
            Objects.requireNonNull(defaultValue);
            Objects.requireNonNull(description);
            if (maxLength < 0 || defaultValue.length() > maxLength) {
                throw new IllegalArgumentException(name + ": the default is longer than " + maxLength);
            }
        }

        @Override
        public Object fallback() {
            return defaultValue;
        }
    }

    /** An integer parameter. */
    static StageParameter integer(String name, long defaultValue, long min, long max, String description) {
        return new Int(name, defaultValue, min, max, description);
    }

    /** A number parameter. */
    static StageParameter number(String name, double defaultValue, double min, double max, String description) {
        return new Num(name, defaultValue, min, max, description);
    }

    /** A boolean parameter. */
    static StageParameter bool(String name, boolean defaultValue, String description) {
        return new Bool(name, defaultValue, description);
    }

    /** A string parameter. */
    static StageParameter text(String name, String defaultValue, int maxLength, String description) {
        return new Text(name, defaultValue, maxLength, description);
    }
}
