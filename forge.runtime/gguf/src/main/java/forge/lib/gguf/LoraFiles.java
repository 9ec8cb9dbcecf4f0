package forge.lib.gguf;

import forge.api.model.ModelMetadata;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * LoRA adapter GGUF files ({@code general.type = adapter}, {@code adapter.type = lora}), as
 * llama.cpp's {@code convert_lora_to_gguf.py} writes them and its {@code llama_adapter_lora_init}
 * reads them: per adapted weight {@code W} ({@code ne = [in, out]}), a {@code W.lora_a} of
 * {@code [in, r]} and a {@code W.lora_b} of {@code [r, out]} ({@code token_embd}'s pair the other
 * way round), and {@code adapter.lora.alpha}. Read from headers alone, so the catalog can tell which
 * model an adapter belongs to without loading either.
 */
public final class LoraFiles {

    private LoraFiles() {}

    /** Whether a file's metadata says it is an adapter, not a model ({@code general.type = adapter}). */
    public static boolean isAdapter(ModelMetadata metadata) {
        return metadata.string("general.type").filter("adapter"::equals).isPresent();
    }

    /**
     * Why {@code adapter} cannot be applied to {@code model}; empty when it can. The checks are
     * llama.cpp's own ({@code llama_adapter_lora_init_impl}), made here first so that the reason is
     * given before anything is loaded: the file's type, the architecture, that every tensor is one
     * of an {@code a}/{@code b} pair of a tensor the model has, and every pair's shape against the
     * model's tensor (a base model of another width fails here).
     */
    public static Optional<String> mismatch(GgufFile adapter, GgufFile model) {
        ModelMetadata a = adapter.metadata();
        if (!isAdapter(a)) {
            return Optional.of("it is not an adapter (general.type is '"
                    + a.string("general.type").orElse("") + "', not 'adapter')");
        }
        String type = a.string("adapter.type").orElse("");
        if (!type.equals("lora")) {
            return Optional.of("it is not a LoRA adapter (adapter.type is '" + type + "', not 'lora')");
        }
        String arch = a.architecture().orElse("");
        String modelArch = model.metadata().architecture().orElse("");
        if (!arch.equals(modelArch)) {
            return Optional.of("it was made for architecture '" + arch + "', the model is '" + modelArch + "'");
        }
        Map<String, GgufTensorInfo[]> pairs = new HashMap<>();
        for (GgufTensorInfo t : adapter.tensors()) {
            String name = t.name();
            if (name.endsWith(".lora_a")) {
                pairs.computeIfAbsent(name.substring(0, name.length() - 7), k -> new GgufTensorInfo[2])[0] = t;
            } else if (name.endsWith(".lora_b")) {
                pairs.computeIfAbsent(name.substring(0, name.length() - 7), k -> new GgufTensorInfo[2])[1] = t;
            } else if (!name.endsWith("_norm.weight")) { // llama.cpp skips norm vectors
                return Optional.of("its tensor '" + name + "' is neither a lora_a nor a lora_b");
            }
        }
        if (pairs.isEmpty()) {
            return Optional.of("it has no lora_a/lora_b tensors");
        }
        for (var e : pairs.entrySet()) {
            String name = e.getKey();
            GgufTensorInfo la = e.getValue()[0];
            GgufTensorInfo lb = e.getValue()[1];
            if (la == null || lb == null) {
                return Optional.of("its pair for '" + name + "' lacks its " + (la == null ? "lora_a" : "lora_b"));
            }
            Optional<GgufTensorInfo> base = model.tensor(name);
            if (base.isEmpty()) {
                return Optional.of("it adapts '" + name + "', which the model does not have (another base model)");
            }
            List<Long> w = base.get().dims();
            List<Long> da = la.dims();
            List<Long> db = lb.dims();
            if (w.size() < 2 || da.size() < 2 || db.size() < 2) {
                return Optional.of("its pair for '" + name + "' is not two matrices of a matrix");
            }
            boolean fits = name.endsWith("token_embd.weight")
                    ? w.get(0).equals(db.get(1)) && w.get(1).equals(da.get(1))
                    : w.get(0).equals(da.get(0))
                            && w.get(1).equals(db.get(1))
                            && da.get(1).equals(db.get(0));
            if (!fits) {
                return Optional.of("its pair for '" + name + "' is " + da + " x " + db + ", which does not fit the"
                        + " model's " + w + " (it was made for a base model of another shape)");
            }
        }
        return Optional.empty();
    }
}
