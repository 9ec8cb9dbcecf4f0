package forge.api.backend;

import java.util.Objects;

/** A backend provider's verdict on whether it can run on this machine. */
public sealed interface Availability {

    /** A human-readable detail: the library version and devices found, or why it cannot run. */
    String detail();

    /** The backend can run here. */
    record Usable(String detail) implements Availability {
        public Usable {
            Objects.requireNonNull(detail);
        }
    }

    /** The backend cannot run here, and why. */
    record Unusable(String detail) implements Availability {
        public Unusable {
            Objects.requireNonNull(detail);
        }
    }

    static Availability usable(String detail) {
        return new Usable(detail);
    }

    static Availability unusable(String reason) {
        return new Unusable(reason);
    }

    default boolean isUsable() {
        return this instanceof Usable;
    }
}
