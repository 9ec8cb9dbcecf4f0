package forge.http.server;

import java.util.Set;

/** {@code --strict}: a parameter that would be accepted without effect is a 400 instead of a header. */
final class Strictness {

    private Strictness() {}

    /** Throws a 400 naming the first ignored parameter when strict; otherwise does nothing. */
    static void check(boolean strict, Set<String> ignored) {
        if (strict && !ignored.isEmpty()) {
            String first = ignored.iterator().next();
            throw ApiError.badRequest(
                    first,
                    "'" + first + "' is not supported by this server"
                            + (ignored.size() > 1
                                    ? " (nor "
                                            + String.join(
                                                    ", ",
                                                    ignored.stream().skip(1).toList()) + ")"
                                    : "")
                            + "; without --strict it would be ignored and named in X-Forge-Ignored-Params");
        }
    }
}
