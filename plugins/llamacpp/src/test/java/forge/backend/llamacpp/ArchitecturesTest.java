package forge.backend.llamacpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class ArchitecturesTest {

    @Test
    void knownArchitecturesLoadAndOthersAreRefusedByName() {
        for (String a : new String[] {"llama", "qwen2", "qwen3", "gemma3", "gpt-oss", "deepseek2"}) {
            assertTrue(Architectures.refuses(Optional.of(a)).isEmpty(), a);
        }
        assertEquals(
                Optional.of("the model's architecture 'frobnitz' is not supported by llama.cpp v0.5.0"),
                Architectures.refuses(Optional.of("frobnitz")));
        // a projector is not a model; a header naming none is left to the load
        assertTrue(Architectures.refuses(Optional.of("clip")).isPresent());
        assertTrue(Architectures.refuses(Optional.empty()).isEmpty());
    }
}
