package forge.backend.llamacpp;

import forge.api.backend.LoraAdapter;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * A {@code llama_adapter_lora} of one {@link LlamaModel}. Its pointer is a segment of the model's
 * arena with no cleanup of its own: llama.cpp frees an adapter it still holds when the model is
 * freed ({@code llama_model_free}, "loaded adapters that are not manually freed will be freed when
 * the associated model is deleted", {@code include/llama.h}), and the model is freed only after all
 * its contexts are closed. So an adapter is never freed while a decode uses it, and using it after
 * its model closed fails in Java (the arena is closed).
 */
final class LlamaLoraAdapter implements LoraAdapter {

    private final LlamaModel model;
    private final MemorySegment adapter;
    private final Path path;
    private final float alpha;

    LlamaLoraAdapter(LlamaModel model, MemorySegment adapter, Path path, float alpha) {
        this.model = model;
        this.adapter = adapter;
        this.path = path;
        this.alpha = alpha;
    }

    @Override
    public Path path() {
        return path;
    }

    @Override
    public float alpha() {
        return alpha;
    }

    LlamaModel model() {
        return model;
    }

    /** The {@code llama_adapter_lora *}, attached to the model's arena. */
    MemorySegment segment() {
        return adapter;
    }

    @Override
    public String toString() {
        return "LlamaLoraAdapter[" + path + "]";
    }
}
