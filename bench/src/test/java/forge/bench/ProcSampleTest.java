package forge.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ProcSampleTest {

    @Test
    void readsThisProcess() {
        if (!Path.of("/proc/self/status").toFile().canRead()) {
            return; // not Linux: nothing to read
        }
        ProcSample s = ProcSample.read(ProcessHandle.current().pid(), 3, 42);
        assertEquals(3, s.minute());
        assertEquals(42, s.requests());
        assertTrue(s.rssKb() > 10_000, "a JVM is bigger than 10 MiB: " + s);
        assertTrue(s.fds() >= 3, "stdin, stdout, stderr at least: " + s);
        assertTrue(s.threads() >= 2, "a JVM has several threads: " + s);
        assertEquals(new ProcSample(0, 0, 0, 0, 0), ProcSample.read(Long.MAX_VALUE, 0, 0), "a process that is gone");
    }

    @Test
    void rowsLineUpWithTheHeader() {
        assertEquals(
                ProcSample.header().length(),
                new ProcSample(12, 3456, 402_000, 57, 41).row().length());
    }
}
