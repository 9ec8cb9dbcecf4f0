package forge.backend.llamacpp;

import java.util.List;

/**
 * How many layers {@code -ngl auto} puts on the GPU: every layer that fits in the free device
 * memory, less a margin, as llama.cpp's {@code --fit} does ({@code common/fit.cpp}: 1 GiB kept free
 * per device for the KV cache and compute buffers by default). Pure arithmetic over the file's
 * tensor sizes, so it is tested without a GPU.
 *
 * <p>llama.cpp counts the output layer as one more: {@code n_gpu_layers = n_layer + 1} offloads
 * everything, and {@code k} offloads the output layer and the last {@code k - 1} repeating layers
 * ({@code i_gpu_start = n_layer + 1 - k} in {@code llama_model::load_tensors}). So the output
 * goes first, then the layers from the last one down.
 */
final class GpuLayerFit {

    /** What llama.cpp's {@code --fit} leaves free on each device by default ({@code fit_params_target}). */
    static final long MARGIN = 1024L * 1024 * 1024;

    private GpuLayerFit() {}

    /**
     * @param layers    {@code n_gpu_layers} for llama.cpp (0 to {@code n_layer + 1})
     * @param bytes     the weights that go to the GPU with it
     * @param reason    one line for the log and {@code /props}
     */
    record Choice(int layers, long bytes, String reason) {}

    /**
     * @param layerBytes  the weights of each repeating layer ({@code blk.N.*}), in order
     * @param outputBytes the output layer's weights ({@code output.weight}, {@code output_norm})
     * @param freeBytes   free memory of the devices the model may use
     */
    static Choice choose(List<Long> layerBytes, long outputBytes, long freeBytes) {
        int n = layerBytes.size();
        long room = freeBytes - MARGIN;
        long total =
                outputBytes + layerBytes.stream().mapToLong(Long::longValue).sum();
        if (total <= room) {
            return new Choice(
                    n + 1,
                    total,
                    "auto: all " + (n + 1) + " layers fit (" + mib(total) + " MiB of weights, " + mib(freeBytes)
                            + " MiB free, " + mib(MARGIN) + " MiB kept for the KV cache and buffers)");
        }
        long used = 0;
        int k = 0;
        if (outputBytes <= room) {
            used = outputBytes;
            k = 1;
            for (int i = n - 1; i >= 0 && used + layerBytes.get(i) <= room; i--) {
                used += layerBytes.get(i);
                k++;
            }
        }
        return new Choice(
                k,
                used,
                "auto: " + k + " of " + (n + 1) + " layers fit (" + mib(used) + " of " + mib(total)
                        + " MiB of weights in " + mib(freeBytes) + " MiB free, " + mib(MARGIN)
                        + " MiB kept for the KV cache and buffers); the rest run on the CPU");
    }

    private static long mib(long bytes) {
        return Math.max(0, bytes) >> 20;
    }
}
