package forge.backend.llamacpp;

import forge.api.BackendException;
import forge.api.backend.BackendContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;

/**
 * llama-server's GPU flags as backend settings ({@link BackendContext#GPU_LAYERS} and the keys
 * beside it), parsed once when the backend is created; a bad value is an error naming the flag.
 *
 * @param layers      {@code -ngl N}; empty for {@code auto} (every layer that fits) or {@code all}
 * @param all         {@code -ngl all}: every layer, fit or not (llama.cpp's {@code n_gpu_layers = -1})
 * @param mainGpu     {@code --main-gpu}
 * @param splitMode   {@code --split-mode} as {@code enum llama_split_mode}: 0 none, 1 layer, 2 row
 * @param tensorSplit {@code --tensor-split} proportions, one per device; empty for llama.cpp's default
 * @param devices     {@code --device} names; empty for every GPU, {@code [none]} for none
 * @param given       which of these flags the user gave, for the CPU backend's note that it ignores them
 */
public record GpuSettings(
        OptionalInt layers,
        boolean all,
        int mainGpu,
        int splitMode,
        List<Float> tensorSplit,
        List<String> devices,
        List<String> given) {

    static final int SPLIT_NONE = 0, SPLIT_LAYER = 1, SPLIT_ROW = 2;

    public GpuSettings {
        tensorSplit = List.copyOf(tensorSplit);
        devices = List.copyOf(devices);
        given = List.copyOf(given);
    }

    /** llama.cpp's defaults: every layer that fits, split by layer over every GPU. */
    public static final GpuSettings DEFAULTS =
            new GpuSettings(OptionalInt.empty(), false, 0, SPLIT_LAYER, List.of(), List.of(), List.of());

    /** Whether {@code --device none} keeps everything on the CPU. */
    boolean noDevices() {
        return devices.equals(List.of("none"));
    }

    public static GpuSettings from(BackendContext context) {
        List<String> given = new ArrayList<>();
        OptionalInt layers = OptionalInt.empty();
        boolean all = false;
        String ngl =
                context.setting(BackendContext.GPU_LAYERS).map(String::strip).orElse("auto");
        if (context.setting(BackendContext.GPU_LAYERS).isPresent()) {
            given.add("-ngl " + ngl);
        }
        switch (ngl.toLowerCase(Locale.ROOT)) {
            case "auto" -> {}
            case "all" -> all = true;
            default -> {
                try {
                    int n = Integer.parseInt(ngl);
                    if (n < 0) {
                        all = true; // llama.cpp's spelling of "all"
                    } else {
                        layers = OptionalInt.of(n);
                    }
                } catch (NumberFormatException e) {
                    throw new BackendException("-ngl/--gpu-layers: a number of layers, auto or all, got '" + ngl + "'");
                }
            }
        }
        int mainGpu = 0;
        var main = context.setting(BackendContext.MAIN_GPU);
        if (main.isPresent()) {
            given.add("--main-gpu " + main.get());
            try {
                mainGpu = Integer.parseInt(main.get().strip());
                if (mainGpu < 0) {
                    throw new NumberFormatException();
                }
            } catch (NumberFormatException e) {
                throw new BackendException("--main-gpu: a device index (0, 1, ...), got '" + main.get() + "'");
            }
        }
        int split = SPLIT_LAYER;
        var mode = context.setting(BackendContext.SPLIT_MODE);
        if (mode.isPresent()) {
            given.add("--split-mode " + mode.get());
            split = switch (mode.get().strip().toLowerCase(Locale.ROOT)) {
                case "none" -> SPLIT_NONE;
                case "layer" -> SPLIT_LAYER;
                case "row" -> SPLIT_ROW;
                default -> throw new BackendException("--split-mode: none, layer or row, got '" + mode.get() + "'");
            };
        }
        List<Float> tensorSplit = new ArrayList<>();
        var ts = context.setting(BackendContext.TENSOR_SPLIT);
        if (ts.isPresent()) {
            given.add("--tensor-split " + ts.get());
            for (String part : ts.get().split("[,/]")) {
                try {
                    float f = Float.parseFloat(part.strip());
                    if (!(f >= 0) || Float.isInfinite(f)) {
                        throw new NumberFormatException();
                    }
                    tensorSplit.add(f);
                } catch (NumberFormatException e) {
                    throw new BackendException("--tensor-split: proportions such as 3,1, got '" + ts.get() + "'");
                }
            }
        }
        List<String> devices = new ArrayList<>();
        var dev = context.setting(BackendContext.DEVICES);
        if (dev.isPresent()) {
            given.add("--device " + dev.get());
            for (String d : dev.get().split(",")) {
                if (!d.isBlank()) {
                    devices.add(d.strip());
                }
            }
            if (devices.contains("none") && devices.size() > 1) {
                throw new BackendException(
                        "--device: none, or device names such as CUDA0,CUDA1, got '" + dev.get() + "'");
            }
        }
        return new GpuSettings(layers, all, mainGpu, split, tensorSplit, devices, given);
    }
}
