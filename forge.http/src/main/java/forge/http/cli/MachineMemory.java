package forge.http.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The machine's memory, as {@code /proc/meminfo} tells it: what the automatic sizes start from. */
final class MachineMemory {

    private static final Logger LOG = LoggerFactory.getLogger(ServeCommand.class);

    private MachineMemory() {}

    /** {@code MemTotal} of {@code /proc/meminfo}; -1 when unknown. */
    static long totalMemory() {
        return meminfo("MemTotal:");
    }

    /** {@code MemAvailable} of {@code /proc/meminfo}: what the machine can give without swapping; -1 when unknown. */
    static long availableMemory() {
        return meminfo("MemAvailable:");
    }

    /** A line of {@code /proc/meminfo} in bytes; -1 when unknown. */
    private static long meminfo(String key) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith(key)) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            LOG.debug("cannot read {} of /proc/meminfo: {}", key, e.toString());
        }
        return -1;
    }
}
