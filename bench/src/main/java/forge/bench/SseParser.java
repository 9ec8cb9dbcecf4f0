package forge.bench;

import java.util.Optional;

/**
 * Splits a {@code text/event-stream} into its events' data, one line at a time.
 *
 * <p>The subset of the WHATWG rules that OpenAI-style servers use: {@code data:} lines (one
 * optional space after the colon) accumulate, joined by {@code \n}; a blank line ends the event;
 * lines starting with {@code :} are comments; other fields ({@code event:}, {@code id:},
 * {@code retry:}) are ignored. A {@code \r} left by a CRLF line ending is dropped.
 */
public final class SseParser {

    private final StringBuilder data = new StringBuilder();
    private boolean hasData;

    /**
     * Feeds one line, without its terminator.
     *
     * @return the event's data when this line (a blank one) completes an event that had data
     */
    public Optional<String> line(String line) {
        String l = line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
        if (l.isEmpty()) {
            return dispatch();
        }
        if (l.startsWith(":")) {
            return Optional.empty();
        }
        int colon = l.indexOf(':');
        String field = colon < 0 ? l : l.substring(0, colon);
        if (!field.equals("data")) {
            return Optional.empty();
        }
        String value = colon < 0 ? "" : l.substring(colon + 1);
        if (value.startsWith(" ")) {
            value = value.substring(1);
        }
        if (hasData) {
            data.append('\n');
        }
        data.append(value);
        hasData = true;
        return Optional.empty();
    }

    /** Ends the stream: the data of a last event that was not followed by a blank line. */
    public Optional<String> finish() {
        return dispatch();
    }

    private Optional<String> dispatch() {
        if (!hasData) {
            return Optional.empty();
        }
        String event = data.toString();
        data.setLength(0);
        hasData = false;
        return Optional.of(event);
    }
}
