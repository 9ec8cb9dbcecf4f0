package forge.runtime;

import forge.api.backend.Availability;
import java.util.Objects;

/**
 * One backend provider's verdict at startup.
 *
 * @param name     the provider's name
 * @param module   its module
 * @param location {@code boot} or its plugin jar or folder
 * @param priority its priority
 * @param verdict  whether it can run here, and why
 * @param chosen   whether the runtime chose it
 */
public record BackendChoice(
        String name, String module, String location, int priority, Availability verdict, boolean chosen) {
    public BackendChoice {
        Objects.requireNonNull(name);
        Objects.requireNonNull(verdict);
    }
}
