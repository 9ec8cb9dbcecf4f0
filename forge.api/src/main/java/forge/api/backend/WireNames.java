package forge.api.backend;

import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/** Parses the wire spelling of a closed set's constant, for the enums of this package. */
final class WireNames {
    private WireNames() {}

    /**
     * The constant of {@code values} whose wire spelling is {@code text}, ignoring case.
     *
     * @param what what the set is, for the message: "KV cache type"
     * @throws IllegalArgumentException naming every allowed spelling
     */
    static <E extends Enum<E>> E parse(E[] values, Function<E, String> wire, String text, String what) {
        Objects.requireNonNull(text, what);
        for (E e : values) {
            if (wire.apply(e).equals(text.toLowerCase(Locale.ROOT))) {
                return e;
            }
        }
        String[] names = Arrays.stream(values).map(wire).toArray(String[]::new);
        String allowed = String.join(", ", Arrays.copyOf(names, names.length - 1)) + " or " + names[names.length - 1];
        throw new IllegalArgumentException(what + " must be " + allowed + ", not '" + text + "'");
    }
}
