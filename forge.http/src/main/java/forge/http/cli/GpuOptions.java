package forge.http.cli;

import forge.api.backend.BackendContext;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * llama-server's GPU flags, passed to the backend as {@link BackendContext} settings. A backend
 * without a GPU (the CPU one) accepts them and says in its log that it ignores them, as
 * llama-server on a CPU build does.
 */
final class GpuOptions {

    @Option(
            names = {"-ngl", "--gpu-layers", "--n-gpu-layers"},
            paramLabel = "N|auto|all",
            description = {
                "Layers to put on the GPU (default: auto, every layer that fits in the free device memory,",
                "keeping 1 GiB for the KV cache and buffers; all: every one, fit or not). Ignored without a GPU backend."
            })
    String gpuLayers;

    @Option(
            names = {"-mg", "--main-gpu"},
            paramLabel = "INDEX",
            description = "The GPU that holds the model with --split-mode none (default: 0).")
    String mainGpu;

    @Option(
            names = {"-sm", "--split-mode"},
            paramLabel = "none|layer|row",
            description = "How to split a model over several GPUs (default: layer).")
    String splitMode;

    @Option(
            names = {"-ts", "--tensor-split"},
            paramLabel = "N0,N1,...",
            description = "Proportions of the model per GPU, such as 3,1.")
    String tensorSplit;

    @Option(
            names = {"-dev", "--device"},
            paramLabel = "DEV,...",
            description = "The GPU devices to use by name (CUDA0,CUDA1; /props lists them), or none.")
    String devices;

    /** The flags given, as backend settings. */
    Map<String, String> settings() {
        Map<String, String> s = new LinkedHashMap<>();
        put(s, BackendContext.GPU_LAYERS, gpuLayers);
        put(s, BackendContext.MAIN_GPU, mainGpu);
        put(s, BackendContext.SPLIT_MODE, splitMode);
        put(s, BackendContext.TENSOR_SPLIT, tensorSplit);
        put(s, BackendContext.DEVICES, devices);
        return s;
    }

    private static void put(Map<String, String> s, String key, String value) {
        if (value != null) {
            s.put(key, value);
        }
    }
}
