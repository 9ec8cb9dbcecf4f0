package forge.api.backend;

import java.nio.file.Path;

/**
 * A LoRA adapter loaded for one {@link LoadedModel} ({@link LoadedModel#loadAdapter}): low-rank
 * deltas to some of the model's weight matrices, applied at a scale the request chooses
 * ({@link InferenceContext#adapters}). It belongs to its model: it is freed when the model closes,
 * after every context of the model (and so every decode that could use it) is closed, and never
 * before. Identity is the adapter: two loads of one file are two adapters.
 */
public interface LoraAdapter {

    /** The GGUF file it was loaded from. */
    Path path();

    /** {@code adapter.lora.alpha}: with rank {@code r}, the deltas are multiplied by {@code scale * alpha / r} (0: by the scale). */
    float alpha();
}
