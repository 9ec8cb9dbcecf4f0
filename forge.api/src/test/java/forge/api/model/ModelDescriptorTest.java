package forge.api.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ModelDescriptorTest {

    @Test
    void anAliasSpelledLikeTheIdOrGivenTwiceIsDropped() {
        ModelDescriptor d = new ModelDescriptor(
                "tiny", List.of("tiny", "coder", "coder", "fast"), Path.of("tiny.gguf"), ModelMetadata.EMPTY);
        assertEquals(List.of("coder", "fast"), d.aliases());
        assertEquals(List.of("tiny", "coder", "fast"), d.names());
    }
}
