package forge.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.URI;
import org.junit.jupiter.api.Test;

class TargetTest {

    @Test
    void loopbackOnly() {
        Target.requireLoopback(URI.create("http://127.0.0.1:8080"));
        Target.requireLoopback(URI.create("http://127.1.2.3:8080/"));
        Target.requireLoopback(URI.create("http://[::1]:8080"));
        for (String bad : new String[] {
            "http://10.0.0.1:8080",
            "http://example.com",
            "http://localhost.example.com:1",
            "https://127.0.0.1:8080",
            "http://0.0.0.0:8080",
            "127.0.0.1:8080"
        }) {
            assertThrows(IllegalArgumentException.class, () -> Target.requireLoopback(URI.create(bad)), bad);
        }
    }

    @Test
    void resolvesPathsAndChecksNames() {
        Target t = new Target("forge", URI.create("http://127.0.0.1:8090/"), "m");
        assertEquals(URI.create("http://127.0.0.1:8090/v1/chat/completions"), t.resolve("/v1/chat/completions"));
        assertThrows(IllegalArgumentException.class, () -> new Target("Forge", URI.create("http://127.0.0.1:1"), "m"));
    }
}
