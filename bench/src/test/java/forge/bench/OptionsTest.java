package forge.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OptionsTest {

    @Test
    void seedDefaultsAreTheSeedMethods() {
        Options o = Options.parse(
                "seed",
                "--server",
                "forge=http://127.0.0.1:8090",
                "--server",
                "peer=http://127.0.0.1:8091",
                "--model",
                "peer=qwen");
        assertEquals(30, o.runs());
        assertEquals(2, o.warmup());
        assertEquals(32, o.maxTokens());
        assertEquals(List.of("forge", "peer"), List.copyOf(o.servers().keySet()));
        assertEquals("qwen", o.models().get("peer"));
    }

    @Test
    void explicitValues() {
        Options o = Options.parse(
                "conc",
                "--clients",
                "4, 8",
                "--runs",
                "2",
                "--warmup",
                "0",
                "--max-tokens",
                "16",
                "--llama-bench",
                "lb.json",
                "--cmd",
                "forge=bin/forge serve -m x.gguf");
        assertEquals(List.of(4, 8), o.clients());
        assertEquals(0, o.warmup());
        assertEquals(Optional.of(Path.of("lb.json")), o.llamaBench());
        assertEquals("bin/forge serve -m x.gguf", o.commands().get("forge"));
        assertEquals(
                List.of(Path.of("a.txt")), Options.parse("summary", "a.txt").files());
    }

    @Test
    void restartTakesAScratchFolderAndNoWarmup() {
        Options o = Options.parse("restart", "--clients", "4", "--scratch", "/tmp/cache");
        assertEquals(Optional.of(Path.of("/tmp/cache")), o.scratch());
        assertEquals(0, o.warmup());
        assertEquals(Optional.empty(), Options.parse("seed").scratch());
    }

    @Test
    void aBodyPerServerNameComparesOneServerWithItself() {
        Options o = Options.parse(
                "ttft",
                "--server",
                "guarded=http://127.0.0.1:8090",
                "--server",
                "plain=http://127.0.0.1:8090",
                "--body",
                "guarded={\"samplers\": [\"loop_guard\"]}");
        assertEquals("{\"samplers\": [\"loop_guard\"]}", o.bodies().get("guarded"));
        assertEquals(null, o.bodies().get("plain"));
        assertThrows(IllegalArgumentException.class, () -> Options.parse("ttft", "--body", "nobody={}"));
    }

    @Test
    void errors() {
        assertThrows(IllegalArgumentException.class, Options::parse);
        assertThrows(IllegalArgumentException.class, () -> Options.parse("seed", "--runs", "0"));
        assertThrows(IllegalArgumentException.class, () -> Options.parse("seed", "--runs"));
        assertThrows(IllegalArgumentException.class, () -> Options.parse("seed", "--server", "http://127.0.0.1:1"));
        assertThrows(IllegalArgumentException.class, () -> Options.parse("seed", "--bogus", "1"));
        assertThrows(IllegalArgumentException.class, () -> Options.parse("seed", "--model", "x=y"));
    }
}
