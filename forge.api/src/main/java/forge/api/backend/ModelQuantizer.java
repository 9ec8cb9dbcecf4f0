package forge.api.backend;

import java.nio.file.Path;

/** Rewrites a GGUF model's weights in a smaller type (Q8_0, Q4_K_M, ...). */
@FunctionalInterface
public interface ModelQuantizer {
    /**
     * @param type the target type's name as llama.cpp spells it ({@code Q8_0}, {@code Q4_K_M}, {@code F16})
     * @throws forge.api.BackendException for an unknown type or a failed quantization
     */
    void quantize(Path input, Path output, String type, int threads);
}
