package forge.api.model;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A model the server knows about, loaded or not: what template providers look at to claim it.
 *
 * @param id       the canonical id, from the file name without {@code .gguf}
 * @param aliases  other names clients may use for it
 * @param path     the GGUF file
 * @param metadata its GGUF metadata
 */
public record ModelDescriptor(String id, List<String> aliases, Path path, ModelMetadata metadata) {
    public ModelDescriptor {
        Objects.requireNonNull(id, "id");
        if (id.isBlank()) {
            throw new IllegalArgumentException("model id is blank");
        }
        // An alias spelled like the id, or given twice, names nothing new: /v1/models lists each name once.
        aliases = aliases.stream().filter(a -> !a.equals(id)).distinct().toList();
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(metadata, "metadata");
    }

    /** The id, then the aliases: every name the model answers to. */
    public List<String> names() {
        List<String> names = new ArrayList<>(aliases.size() + 1);
        names.add(id);
        names.addAll(aliases);
        return List.copyOf(names);
    }

    /** True when {@code name} is this model's id or one of its aliases (exact match). */
    public boolean answersTo(String name) {
        return id.equals(name) || aliases.contains(name);
    }
}
