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
 *
 * @param model   the model it belongs to
 * @param segment the {@code llama_adapter_lora *}, attached to the model's arena
 * @param path    the GGUF file it was loaded from
 * @param alpha   its {@code adapter.lora.alpha}
 */
record LlamaLoraAdapter(LlamaModel model, MemorySegment segment, Path path, float alpha) implements LoraAdapter {

    @Override
    public String toString() {
        return "LlamaLoraAdapter[" + path + "]";
    }
}
