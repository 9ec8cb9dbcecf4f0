package forge.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UserHomeTest {

    @Test
    void homeIsTheEnvironmentsNotJavasUserHome() {
        assertEquals(Path.of("/tmp/elsewhere"), UserHome.of(Map.of("HOME", "/tmp/elsewhere")));
        // user.home comes from the password file: it is only the fallback
        assertEquals(Path.of(System.getProperty("user.home")).toAbsolutePath(), UserHome.of(Map.of()));
        assertEquals(Path.of(System.getProperty("user.home")).toAbsolutePath(), UserHome.of(Map.of("HOME", " ")));
    }

    @Test
    void aLeadingTildeIsTheHome() {
        Path home = Path.of("/h");
        assertEquals(Path.of("/h/.forge/models"), UserHome.expand("~/.forge/models", home));
        assertEquals(home, UserHome.expand("~", home));
        assertEquals(Path.of("/abs/~x"), UserHome.expand("/abs/~x", home));
        assertEquals(Path.of("~user/x"), UserHome.expand("~user/x", home));
    }
}
