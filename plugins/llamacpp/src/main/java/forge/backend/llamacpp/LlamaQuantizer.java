package forge.backend.llamacpp;

import forge.api.BackendException;
import forge.api.backend.ModelQuantizer;
import forge.backend.llamacpp.ffm.Llama;
import forge.backend.llamacpp.ffm.LlamaLog;
import forge.backend.llamacpp.ffm.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** {@code llama_model_quantize}: rewrites a GGUF model's weights in another type, on the calling thread. */
final class LlamaQuantizer implements ModelQuantizer {

    /** The target types by name, as llama.cpp's {@code llama-quantize} spells them, and their {@code enum llama_ftype}. */
    static final Map<String, Integer> FTYPES;

    static {
        Map<String, Integer> m = new TreeMap<>();
        m.put("F32", 0); // LLAMA_FTYPE_ALL_F32
        m.put("F16", 1); // LLAMA_FTYPE_MOSTLY_F16
        m.put("Q4_0", 2);
        m.put("Q4_1", 3);
        m.put("Q8_0", 7);
        m.put("Q5_0", 8);
        m.put("Q5_1", 9);
        m.put("Q2_K", 10);
        m.put("Q3_K_S", 11);
        m.put("Q3_K_M", 12);
        m.put("Q3_K_L", 13);
        m.put("Q4_K_S", 14);
        m.put("Q4_K_M", 15);
        m.put("Q5_K_S", 16);
        m.put("Q5_K_M", 17);
        m.put("Q6_K", 18);
        m.put("BF16", 32);
        FTYPES = Map.copyOf(m);
    }

    @Override
    public void quantize(Path input, Path output, String type, int threads) {
        Integer ftype = FTYPES.get(type.toUpperCase(Locale.ROOT));
        if (ftype == null) {
            throw new BackendException("unknown quantization type " + type + "; valid: "
                    + String.join(", ", new TreeMap<>(FTYPES).keySet()));
        }
        Path in = GgufFiles.check(input);
        Path out = output.toAbsolutePath().normalize();
        if (out.equals(in)) {
            throw new BackendException("quantizing " + in + " onto itself");
        }
        Path parent = out.getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            throw new BackendException("output folder does not exist: " + parent);
        }
        try (Arena call = Arena.ofConfined()) {
            MemorySegment p = Llama.llama_model_quantize_default_params(call);
            Structs.setInt(p, Structs.llama_model_quantize_params, "nthread", threads);
            Structs.setInt(p, Structs.llama_model_quantize_params, "ftype", ftype);
            LlamaLog.takeLastError();
            int rc = Llama.llama_model_quantize(call.allocateFrom(in.toString()), call.allocateFrom(out.toString()), p);
            if (rc != 0) {
                String why = LlamaLog.takeLastError();
                throw new BackendException(
                        "quantizing " + in + " to " + type + " failed" + (why.isEmpty() ? "" : ": " + why));
            }
        }
    }
}
