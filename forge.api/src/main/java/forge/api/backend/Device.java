package forge.api.backend;

import java.util.Objects;

/**
 * A compute device a backend offers, as {@code /props} shows it.
 *
 * @param name        the backend's name for it ({@code CUDA0}, {@code CPU}): what {@code --device} takes
 * @param description what the driver calls it ({@code NVIDIA H200})
 * @param type        {@code cpu}, {@code gpu}, {@code igpu} or {@code accel}
 * @param freeBytes   free memory now
 * @param totalBytes  all of its memory
 */
public record Device(String name, String description, String type, long freeBytes, long totalBytes) {
    public Device {
        Objects.requireNonNull(name);
        Objects.requireNonNull(description);
        Objects.requireNonNull(type);
    }

    /** Whether models can be offloaded to it. */
    public boolean isGpu() {
        return type.equals("gpu") || type.equals("igpu");
    }
}
