package forge.runtime.engine;

import java.util.List;

/**
 * Finds stop strings in generated text across token boundaries, and never lets any part of a stop
 * string out: text that could be the start of a stop string is held back until the next piece
 * shows whether it is.
 */
final class StopMatcher {

    private final List<String> stops;
    private final StringBuilder pending = new StringBuilder();
    private boolean stopped;
    private String matched = "";

    StopMatcher(List<String> stops) {
        this.stops = stops.stream().filter(s -> !s.isEmpty()).toList();
    }

    /** True once a stop string was found; nothing more is emitted. */
    boolean stopped() {
        return stopped;
    }

    /** The stop string that was found, else empty. */
    String matched() {
        return matched;
    }

    /** Adds generated text; returns the text that is safe to emit now. */
    String push(String text) {
        if (stopped) {
            return "";
        }
        if (stops.isEmpty()) {
            return text;
        }
        pending.append(text);
        int first = -1;
        for (String stop : stops) {
            int at = pending.indexOf(stop);
            if (at >= 0 && (first < 0 || at < first)) {
                first = at;
                matched = stop;
            }
        }
        if (first >= 0) {
            stopped = true;
            String out = pending.substring(0, first);
            pending.setLength(0);
            return out;
        }
        int hold = heldBack();
        String out = pending.substring(0, pending.length() - hold);
        pending.delete(0, pending.length() - hold);
        return out;
    }

    /** The generation ended without a stop string: releases what was held back. */
    String flush() {
        String out = stopped ? "" : pending.toString();
        pending.setLength(0);
        return out;
    }

    /** The length of the longest suffix of the pending text that is a proper prefix of a stop string. */
    private int heldBack() {
        int best = 0;
        for (String stop : stops) {
            for (int n = Math.min(stop.length() - 1, pending.length()); n > best; n--) {
                if (suffixIsPrefix(n, stop)) {
                    best = n;
                    break;
                }
            }
        }
        return best;
    }

    /** Whether the last {@code n} chars of the pending text are the first {@code n} of {@code stop}. */
    private boolean suffixIsPrefix(int n, String stop) {
        int from = pending.length() - n;
        for (int i = 0; i < n; i++) {
            if (pending.charAt(from + i) != stop.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
