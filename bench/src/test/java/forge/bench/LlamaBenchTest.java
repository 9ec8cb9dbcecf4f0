package forge.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class LlamaBenchTest {

    @Test
    void parsesRecordedOutput() throws IOException {
        LlamaBench b = LlamaBench.parse(ChatStreamTest.resource("llama-bench.json"));
        assertEquals(512, b.ppTokens());
        assertEquals(128, b.tgTokens());
        assertEquals(2, b.threads());
        assertEquals(true, b.ppTps() > b.tgTps());
        assertEquals(true, b.tgTps() > 0);
    }

    @Test
    void rejectsOtherText() {
        assertThrows(IllegalArgumentException.class, () -> LlamaBench.parse("| model | size |"));
        assertThrows(IllegalArgumentException.class, () -> LlamaBench.parse("{}"));
        assertThrows(
                IllegalArgumentException.class,
                () -> LlamaBench.parse("[{\"n_prompt\":512,\"n_gen\":0,\"avg_ts\":100.0}]"));
    }
}
