package forge.api.template;

import java.util.Locale;

/** The roles a chat message can have, as OpenAI's API spells them. */
public enum Role {
    SYSTEM,
    DEVELOPER,
    USER,
    ASSISTANT,
    TOOL;

    /** The role as clients spell it: {@code system}, {@code user}, ... */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a role as clients spell it.
     *
     * @throws IllegalArgumentException naming the role when it is not one of these
     */
    public static Role fromWire(String role) {
        for (Role r : values()) {
            if (r.wire().equals(role)) {
                return r;
            }
        }
        throw new IllegalArgumentException(
                "unknown role '" + role + "'; expected system, developer, user, assistant or tool");
    }
}
