package forge.lib.gguf;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The GGUF reader on arbitrary files: a file is read in full ({@link GgufReader#values} of every
 * key, arrays too) or refused with a {@link GgufException} naming it, nothing else, and the read
 * allocates no more than a small multiple of the file's own size, whatever the header claims.
 *
 * <p>In the normal build this runs the committed corpus ({@code GgufReaderFuzzTestInputs/read/}:
 * synthetic models, their headers, and the hand-made files of {@link GgufReaderTest}); under
 * {@code bench/fuzz.sh} Jazzer fuzzes it, in a JVM with a small heap so that an allocation sized by
 * a claim rather than by the file is an {@link OutOfMemoryError} even where the count below misses it.
 */
class GgufReaderFuzzTest {

    /**
     * Bytes a read may allocate per byte of file: the header's values are boxed (a one-byte
     * {@code UINT8} becomes a {@code Long} and a list slot), read twice (header, then in full), and
     * each entry's key is held in three maps. Measured on the corpus: at most about 20.
     */
    private static final long BYTES_PER_FILE_BYTE = 64;
    /** What any read allocates whatever the file: the 64 KiB read buffer, the channel, the messages. */
    private static final long FIXED_BYTES = 256 << 10;

    /** One file for every input: creating and deleting one per input would cost more than reading it. */
    private static final Path FILE;

    static {
        try {
            FILE = Files.createTempFile("forge-fuzz", ".gguf");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        FILE.toFile().deleteOnExit();
    }

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @FuzzTest(maxDuration = "30s")
    void read(byte[] data) throws IOException {
        Files.write(FILE, data);
        readOrRefuse();
        // Counted on a second read of the same file, once the first has loaded and linked the classes it needs.
        long before = THREADS.getCurrentThreadAllocatedBytes();
        readOrRefuse();
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        assertTrue(
                allocated <= FIXED_BYTES + BYTES_PER_FILE_BYTE * data.length,
                "reading a file of " + data.length + " bytes allocated " + allocated + " bytes");
    }

    private static void readOrRefuse() {
        try (GgufReader reader = GgufReader.open(FILE)) {
            reader.values(key -> true);
        } catch (GgufException refused) {
            assertTrue(refused.getMessage().startsWith(FILE + ": "), "names the file: " + refused.getMessage());
        }
    }
}
