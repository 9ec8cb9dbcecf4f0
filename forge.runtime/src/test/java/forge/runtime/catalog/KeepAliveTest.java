package forge.runtime.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class KeepAliveTest {

    @Test
    void durationsAsOllamaParsesThem() {
        assertEquals(Duration.ofMinutes(5), KeepAlive.parse("5m").duration());
        assertEquals(Duration.ofSeconds(30), KeepAlive.parse("30s").duration());
        assertEquals(Duration.ofMinutes(90), KeepAlive.parse("1h30m").duration());
        assertEquals(Duration.ofMillis(500), KeepAlive.parse("500ms").duration());
        assertEquals(Duration.ofSeconds(300), KeepAlive.parse("300").duration());
        assertEquals(Duration.ofMillis(1500), KeepAlive.seconds(1.5).duration());
    }

    @Test
    void zeroUnloadsAfterTheRequestAndNegativeKeeps() {
        assertEquals(KeepAlive.NOW, KeepAlive.parse("0"));
        assertEquals(KeepAlive.NOW, KeepAlive.parse("0s"));
        assertTrue(KeepAlive.parse("-1").forever());
        assertTrue(KeepAlive.parse("-1m").forever());
        assertTrue(KeepAlive.seconds(-5).forever());
    }

    @Test
    void anythingElseIsRefusedSayingWhatWasExpected() {
        for (String bad : new String[] {"", "soon", "5 minutes", "5x", "m", "1h junk"}) {
            var e = assertThrows(IllegalArgumentException.class, () -> KeepAlive.parse(bad), bad);
            assertTrue(e.getMessage().startsWith("keep_alive: expected a duration"), e.getMessage());
        }
    }
}
