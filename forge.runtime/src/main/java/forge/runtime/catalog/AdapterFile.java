package forge.runtime.catalog;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A LoRA adapter of a registered model: given with {@code --lora} / {@code --lora-scaled}, or found
 * beside the model in a model store. Its id names the model with the adapter applied at scale 1 (a
 * model id of its own, as vLLM serves an adapter and the Kubernetes inference gateway routes to
 * one); its index among the model's adapters is the {@code id} of llama-server's
 * {@code /lora-adapters} and per-request {@code lora} list.
 *
 * @param id     the model id it is served under, unique among models, aliases and adapters
 * @param path   the adapter's GGUF file
 * @param source {@code flag} for {@code --lora}, else the source that found it beside its model
 */
public record AdapterFile(String id, Path path, String source) {
    public AdapterFile {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(source, "source");
    }
}
