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

    @Test
    void thePssOfAProcessThatSharesNothingItMapsIsItsRssAndAFileMappedTwiceCountsOnce() throws Exception {
        Path rollup = Path.of("/proc/self/smaps_rollup");
        if (!rollup.toFile().canRead()) {
            return; // not Linux: nothing to read
        }
        assertEquals(
                1234,
                ProcessProbe.statusField(
                        write("00400000-7fff [rollup]\nRss: 2000 kB\nPss: 1234 kB\n"
                                + "Pss_Anon: 1000 kB\nPss_File: 234 kB\n"),
                        "Pss"));
        long pss = ProcessProbe.pssKb(ProcessHandle.current());
        long rss = ProcessProbe.rssKb(ProcessHandle.current());
        assertTrue(pss > 10_000 && pss <= rss, "PSS " + pss + " KiB, RSS " + rss + " KiB");
    }

    private static Path write(String text) throws java.io.IOException {
        Path f = java.nio.file.Files.createTempFile("smaps_rollup", "");
        f.toFile().deleteOnExit();
        return java.nio.file.Files.writeString(f, text);
    }
}
