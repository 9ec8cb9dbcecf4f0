package forge.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ProcessProbeTest {

    @Test
    void parsesVmRss() {
        assertEquals(123456, ProcessProbe.parseKb("VmRSS:\t  123456 kB"));
        assertThrows(IllegalArgumentException.class, () -> ProcessProbe.parseKb("VmRSS: 12 MB"));
        assertEquals(12, ProcessProbe.parseKb("Threads:\t12"));
    }

    @Test
    void readsThisProcess() {
        if (!Path.of("/proc/self/status").toFile().canRead()) {
            return; // not Linux: nothing to read
        }
        long kb = ProcessProbe.rssKb(ProcessHandle.current());
        assertTrue(kb > 10_000, "a JVM is bigger than 10 MiB: " + kb);
        assertEquals(0, ProcessProbe.vmRssKb(Path.of("/proc/no-such-pid/status")));
    }
}
