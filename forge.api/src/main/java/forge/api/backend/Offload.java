package forge.api.backend;

import java.util.List;
import java.util.Objects;

/**
 * Where a loaded model's layers went: how many of its layers (llama.cpp counts the output layer
 * as one more) live on which GPU devices, and why that many.
 *
 * @param layers    the model's layers, the output layer included
 * @param offloaded the layers on GPU devices (0 on a CPU backend)
 * @param devices   the devices they are on
 * @param bytes     the weights placed there, in bytes (an estimate from the file's tensor sizes)
 * @param reason    why this many: the {@code -ngl} given, or what fitted in the free memory
 */
public record Offload(int layers, int offloaded, List<String> devices, long bytes, String reason) {
    public Offload {
        devices = List.copyOf(devices);
        Objects.requireNonNull(reason);
    }
}
