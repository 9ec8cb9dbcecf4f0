package forge.runtime.catalog;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How long a model stays loaded after a request that used it, as Ollama's {@code keep_alive}: a
 * duration ({@code "5m"}, {@code "1h30m"}, {@code "500ms"}) or a number of seconds; zero unloads
 * the model as soon as the request ends; a negative value keeps it until the server stops.
 *
 * @param duration how long; {@link Duration#ZERO} for "once the request ends"; negative for ever
 */
public record KeepAlive(Duration duration) {

    /** Kept until the server stops (or the memory policy needs the room). */
    public static final KeepAlive FOREVER = new KeepAlive(Duration.ofSeconds(-1));
    /** Unloaded as soon as the last request using it ends. */
    public static final KeepAlive NOW = new KeepAlive(Duration.ZERO);

    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h)");

    public KeepAlive {
        Objects.requireNonNull(duration);
    }

    /** True when the model stays until the server stops. */
    public boolean forever() {
        return duration.isNegative();
    }

    /**
     * A {@code keep_alive} text: Go's duration syntax (what Ollama parses: {@code 10m}, {@code 1h30m},
     * {@code -1m}), or a plain number of seconds ({@code "300"}, {@code "-1"}).
     *
     * @throws IllegalArgumentException naming what was expected
     */
    public static KeepAlive parse(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        try {
            return seconds(Double.parseDouble(t));
        } catch (NumberFormatException e) {
            // a duration with units
        }
        boolean negative = t.startsWith("-");
        String rest = negative || t.startsWith("+") ? t.substring(1) : t;
        Matcher m = PART.matcher(rest);
        int at = 0;
        double nanos = 0;
        while (at < rest.length() && m.find(at) && m.start() == at) {
            double n = Double.parseDouble(m.group(1));
            nanos += n
                    * switch (m.group(2)) {
                        case "ns" -> 1;
                        case "us", "µs" -> 1e3;
                        case "ms" -> 1e6;
                        case "s" -> 1e9;
                        case "m" -> 60e9;
                        default -> 3600e9;
                    };
            at = m.end();
        }
        if (rest.isEmpty() || at != rest.length()) {
            throw new IllegalArgumentException("keep_alive: expected a duration such as 5m, 30s, 1h30m or a number of"
                    + " seconds (0 = unload after the request, negative = keep loaded), got '" + text + "'");
        }
        if (negative) {
            return nanos == 0 ? NOW : FOREVER;
        }
        return new KeepAlive(Duration.ofNanos((long) Math.min(nanos, Long.MAX_VALUE)));
    }

    /** A number of seconds: negative keeps for ever, zero unloads after the request. */
    public static KeepAlive seconds(double seconds) {
        if (Double.isNaN(seconds)) {
            throw new IllegalArgumentException("keep_alive: not a number");
        }
        if (seconds < 0) {
            return FOREVER;
        }
        return new KeepAlive(Duration.ofMillis((long) Math.min(seconds * 1000, Long.MAX_VALUE / 2_000_000)));
    }

    @Override
    public String toString() {
        return forever()
                ? "forever"
                : duration.isZero()
                        ? "0 (after the request)"
                        : duration.toString().substring(2).toLowerCase(Locale.ROOT);
    }
}
