package forge.template.testkit;

import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** The models a family's claim tests show it: an id and GGUF metadata, nothing else. */
public final class Models {

    private Models() {}

    /** A model with id {@code id}, no aliases, the file {@code <id>.gguf} and the GGUF metadata {@code metadata}. */
    public static ModelDescriptor model(String id, Map<String, Object> metadata) {
        return new ModelDescriptor(id, List.of(), Path.of(id + ".gguf"), new ModelMetadata(metadata, Map.of()));
    }
}
