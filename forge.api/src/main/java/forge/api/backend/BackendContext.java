package forge.api.backend;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the host tells a backend provider: where ForgeLM is installed and the settings the user
 * gave. A record, so plugins use it but cannot implement it.
 *
 * @param home     the ForgeLM home: the jlink image's root, or the build's working folder
 * @param settings backend settings by key (from {@code -Dforge.*} properties and the command
 *                 line), such as {@code llama.home}, the folder that holds the llama.cpp libraries
 */
public record BackendContext(Path home, Map<String, String> settings) {

    /** {@code -ngl}: layers on the GPU, {@code auto} (every layer that fits: the default), {@code all} or a number. */
    public static final String GPU_LAYERS = "gpu.layers";
    /** {@code --main-gpu}: the device index that holds the model with {@code --split-mode none}. */
    public static final String MAIN_GPU = "main.gpu";
    /** {@code --split-mode}: {@code none}, {@code layer} (the default) or {@code row}. */
    public static final String SPLIT_MODE = "split.mode";
    /** {@code --tensor-split}: comma-separated proportions per device, such as {@code 3,1}. */
    public static final String TENSOR_SPLIT = "tensor.split";
    /** {@code --device}: comma-separated device names ({@code CUDA0}), or {@code none} for the CPU alone. */
    public static final String DEVICES = "devices";

    public BackendContext {
        Objects.requireNonNull(home, "home");
        settings = Map.copyOf(settings);
    }

    /** The setting {@code key}, when given. */
    public Optional<String> setting(String key) {
        return Optional.ofNullable(settings.get(key));
    }
}
