package forge.api.backend;

import java.util.Objects;

/**
 * One adapter of a set applied to a decode, with its scale: 0 leaves the model as it is, 1 applies
 * the adapter as trained, other values scale its deltas (llama-server's {@code lora[i].scale}).
 *
 * @param adapter an adapter of the context's own model
 * @param scale   a finite number
 */
public record AdapterScale(LoraAdapter adapter, float scale) {
    public AdapterScale {
        Objects.requireNonNull(adapter, "adapter");
        if (!Float.isFinite(scale)) {
            throw new IllegalArgumentException("an adapter's scale must be finite: " + scale);
        }
    }
}
