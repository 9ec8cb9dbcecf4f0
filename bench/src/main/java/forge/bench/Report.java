package forge.bench;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The machine-readable output: {@code METRIC name=value} and {@code RATIO name=value} lines on
 * stdout, the format of the seed system's autoresearch loop. Progress goes to stderr, so stdout
 * holds nothing but these lines.
 *
 * <p>Names are dotted lower-case words: {@code SERVER.WORKLOAD.FIGURE} for a metric of one
 * server ({@code forge.seed.p95_ms}), {@code WORKLOAD.FIGURE} for a ratio, which is always the
 * first server's figure over the second's ({@code RATIO seed.p95_ms=} forge / peer). Values have
 * at most three decimals, no exponent and no trailing zeros.
 */
public final class Report {

    private static final Pattern NAME = Pattern.compile("[a-z0-9_]+(\\.[a-z0-9_]+)*");

    private final PrintStream out;

    public Report(PrintStream out) {
        this.out = out;
    }

    /** {@code METRIC name=value}, or empty when the value is not a finite number. */
    public static Optional<String> metric(String name, double value) {
        return line("METRIC", name, value);
    }

    /** {@code RATIO name=numerator/denominator}, or empty when it is undefined (zero, NaN). */
    public static Optional<String> ratio(String name, double numerator, double denominator) {
        if (denominator == 0) {
            return Optional.empty();
        }
        return line("RATIO", name, numerator / denominator);
    }

    /** A value as written in a line: at most three decimals, plain notation, no trailing zeros. */
    public static String format(double value) {
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException("not a finite number: " + value);
        }
        BigDecimal d =
                BigDecimal.valueOf(value).setScale(3, RoundingMode.HALF_EVEN).stripTrailingZeros();
        if (d.signum() == 0) {
            return "0";
        }
        return d.toPlainString();
    }

    private static Optional<String> line(String kind, String name, double value) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("bad metric name: " + name);
        }
        if (!Double.isFinite(value)) {
            return Optional.empty();
        }
        return Optional.of(kind + " " + name + "=" + format(value));
    }

    /** Prints a metric line (nothing for a non-finite value: a missing figure, not a fake one). */
    public void metricOut(String name, double value) {
        metric(name, value).ifPresentOrElse(this::print, () -> System.err.println("bench: no value for " + name));
    }

    /** Prints a ratio line (nothing when undefined). */
    public void ratioOut(String name, double numerator, double denominator) {
        ratio(name, numerator, denominator)
                .ifPresentOrElse(this::print, () -> System.err.println("bench: no ratio for " + name));
    }

    private void print(String line) {
        out.println(line);
        out.flush();
    }
}
