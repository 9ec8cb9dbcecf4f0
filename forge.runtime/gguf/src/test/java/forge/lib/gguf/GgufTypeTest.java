package forge.lib.gguf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class GgufTypeTest {

    @Test
    void idsAreThoseOfGgufH() {
        // enum gguf_type of llama.cpp's gguf.h, from 0
        String inGgufH = "UINT8 INT8 UINT16 INT16 UINT32 INT32 FLOAT32 BOOL STRING ARRAY UINT64 INT64 FLOAT64";
        List<String> names = List.of(inGgufH.split(" "));
        assertEquals(GgufType.values().length, names.size());
        for (int id = 0; id < names.size(); id++) {
            GgufType type = GgufType.valueOf(names.get(id));
            assertEquals(id, type.id(), type.name());
            assertEquals(type, GgufType.ofId(id));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 13, Integer.MAX_VALUE})
    void anUnknownIdIsRefused(int id) {
        assertThrows(GgufException.class, () -> GgufType.ofId(id));
    }
}
