package forge.lib.gguf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.BackendException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GgufReaderTest {

    @TempDir
    Path dir;

    @Test
    void readsLlamaCppsQwen2Vocabulary() {
        Path file = LlamaModels.file("ggml-vocab-qwen2.gguf");
        try (GgufReader reader = GgufReader.open(file)) {
            GgufFile header = reader.file();
            assertEquals(3, header.version());
            assertEquals("qwen2", header.metadata().architecture().orElseThrow());
            assertEquals(
                    "gpt2", header.metadata().string("tokenizer.ggml.model").orElseThrow());
            assertEquals("qwen2", header.metadata().string("tokenizer.ggml.pre").orElseThrow());
            assertEquals(
                    151643L,
                    header.metadata().integer("tokenizer.ggml.eos_token_id").orElseThrow());
            assertEquals(GgufType.UINT32, header.types().get("tokenizer.ggml.eos_token_id"));
            assertTrue(header.metadata().chatTemplate().orElseThrow().contains("<|im_start|>"));
            assertEquals(
                    151936,
                    header.metadata().arrayLength("tokenizer.ggml.tokens").orElseThrow());
            assertTrue(header.tensors().isEmpty(), "a vocab-only file");

            var tokens = (GgufValue.Array) reader.value("tokenizer.ggml.tokens").orElseThrow();
            assertEquals(GgufType.STRING, tokens.elementType());
            assertEquals(151936, tokens.size());
            assertEquals("<|endoftext|>", tokens.strings().get(151643));
            assertEquals("<|im_end|>", tokens.strings().get(151645));
            var types =
                    (GgufValue.Array) reader.value("tokenizer.ggml.token_type").orElseThrow();
            assertEquals(GgufType.INT32, types.elementType());
            assertEquals(3L, types.longs().get(151645), "<|im_end|> is a control token");
            var merges = (GgufValue.Array) reader.value("tokenizer.ggml.merges").orElseThrow();
            assertEquals(header.metadata().arrayLength("tokenizer.ggml.merges").orElseThrow(), merges.size());
        }
    }

    @Test
    void readsAHugeModelsHeaderInMilliseconds() throws IOException {
        // Qwen's vocabulary of 151,936 tokens and a 1 GB tensor in a sparse file: only the header is read
        Path file = dir.resolve("huge.gguf");
        try (GgufReader vocab = GgufReader.open(LlamaModels.file("ggml-vocab-qwen2.gguf"))) {
            new GgufWriter().putAll(vocab.values(k -> true)).write(file);
        }
        // without the padding the writer puts after the metadata: the end of the metadata, for a file without tensors
        byte[] kvs = Arrays.copyOf(
                Files.readAllBytes(file), (int) GgufReader.read(file).dataOffset());
        ByteBuffer b = ByteBuffer.allocate(kvs.length + 128).order(ByteOrder.LITTLE_ENDIAN);
        b.put(kvs).putLong(8, 1); // n_tensors = 1
        putString(b, "token_embd.weight");
        b.putInt(2).putLong(3584).putLong(151936).putInt(GgmlType.F16.id()).putLong(0);
        long dataOffset = (b.position() + 31) / 32 * 32;
        long dataBytes = 3584L * 151936 * 2;
        Files.write(file, Arrays.copyOf(b.array(), b.position()));
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(dataOffset + dataBytes);
        }

        GgufReader.read(file); // warm up
        var threads = ManagementFactory.getThreadMXBean();
        long readBefore = bytesReadByThisThread();
        long start = threads.getCurrentThreadCpuTime();
        GgufFile header = GgufReader.read(file);
        // CPU time and bytes read by this thread, not wall time: a busy machine changes neither.
        long millis = (threads.getCurrentThreadCpuTime() - start) / 1_000_000;
        long read = bytesReadByThisThread() - readBefore;
        assertEquals(dataOffset, header.dataOffset());
        assertEquals(dataBytes, header.tensor("token_embd.weight").orElseThrow().byteSize());
        assertEquals(
                151936, header.metadata().arrayLength("tokenizer.ggml.tokens").orElseThrow());
        assertTrue(read < 2 * dataOffset, "read " + read + " bytes for a header of " + dataOffset);
        assertTrue(millis < 200, "read the header in " + millis + " ms of CPU time");
    }

    @Test
    void refusesAFileThatIsNotGguf() throws IOException {
        assertFails(write(new byte[0]), "not a GGUF file");
        assertFails(write("GGML\3\0\0\0".getBytes(StandardCharsets.ISO_8859_1)), "not a GGUF file");
        assertFails(write("{\"json\": true}".getBytes(StandardCharsets.UTF_8)), "magic");
    }

    @Test
    void refusesUnsupportedVersions() throws IOException {
        assertFails(write(header(1, 0, 0).array()), "version 1 is no longer supported");
        assertFails(write(header(4, 0, 0).array()), "unsupported GGUF version 4");
        assertFails(write(header(0x03000000, 0, 0).array()), "big-endian");
        assertEquals(2, GgufReader.read(write(header(2, 0, 0).array())).version());
    }

    @Test
    void refusesAbsurdCounts() throws IOException {
        assertFails(write(header(3, Long.MAX_VALUE, 0).array()), "claims");
        assertFails(write(header(3, 0, -1).array()), "claims");
        assertFails(write(header(3, 0, 1_000_000).array()), "room for at most");
    }

    @Test
    void refusesAbsurdLengths() throws IOException {
        // a key whose length is 2^62
        ByteBuffer b = header(3, 0, 1);
        b.putLong(1L << 62);
        assertFails(write(Arrays.copyOf(b.array(), b.position() + 32)), "truncated");

        // an array that claims 2^40 int32 items
        b = header(3, 0, 1);
        putString(b, "arr");
        b.putInt(GgufType.ARRAY.id()).putInt(GgufType.INT32.id()).putLong(1L << 40);
        assertFails(write(Arrays.copyOf(b.array(), b.position() + 64)), "room for at most");

        // a string value longer than the rest of the file
        b = header(3, 0, 1);
        putString(b, "s");
        b.putInt(GgufType.STRING.id()).putLong(1000);
        assertFails(write(Arrays.copyOf(b.array(), b.position() + 10)), "truncated");

        // an unknown value type
        b = header(3, 0, 1);
        putString(b, "k");
        b.putInt(13).putInt(0);
        assertFails(write(Arrays.copyOf(b.array(), b.position())), "not a GGUF value type");
    }

    @Test
    void refusesAKeyLongerThanItsLimitThoughTheFileHoldsIt() throws IOException {
        ByteBuffer b = header(3, 0, 1);
        b.putLong(GgufReader.MAX_KEY_BYTES + 1);
        Path file = writeSparse(b, GgufReader.MAX_KEY_BYTES + 64);
        assertFails(
                file,
                "key of metadata entry 0 is " + (GgufReader.MAX_KEY_BYTES + 1) + " bytes long, more than the limit of "
                        + GgufReader.MAX_KEY_BYTES);
    }

    @Test
    void refusesAStringValueLongerThanItsLimitThoughTheFileHoldsIt() throws IOException {
        ByteBuffer b = header(3, 0, 1);
        putString(b, "tokenizer.chat_template");
        b.putInt(GgufType.STRING.id()).putLong(GgufReader.MAX_STRING_BYTES + 1L);
        Path file = writeSparse(b, GgufReader.MAX_STRING_BYTES + 64L); // sparse: 64 MiB of holes
        assertFails(
                file,
                "tokenizer.chat_template is " + (GgufReader.MAX_STRING_BYTES + 1L)
                        + " bytes long, more than the limit of " + GgufReader.MAX_STRING_BYTES);
    }

    @Test
    void refusesATensorNameLongerThanGgmlAllows() throws IOException {
        ByteBuffer b = header(3, 1, 0);
        putString(b, "t".repeat(GgufReader.MAX_TENSOR_NAME_BYTES + 1));
        b.putInt(1).putLong(8).putInt(GgmlType.F32.id()).putLong(0);
        assertFails(
                write(Arrays.copyOf(b.array(), b.position() + 64)),
                "name of tensor 0 is 64 bytes long, more than the limit of 63");
    }

    @Test
    void refusesAnArrayItemLongerThanTheRestOfTheFile() throws IOException {
        // kept in the header (at most MAX_KEPT_ARRAY_ITEMS items): its second string claims 2^40 bytes
        ByteBuffer b = header(3, 0, 1);
        putString(b, "list");
        b.putInt(GgufType.ARRAY.id()).putInt(GgufType.STRING.id()).putLong(2);
        putString(b, "a");
        b.putLong(1L << 40);
        assertFails(write(Arrays.copyOf(b.array(), b.position() + 64)), "claims " + (1L << 40) + " bytes");

        // only counted in the header (more items than are kept): its last string claims 2^40 bytes
        int n = GgufReader.MAX_KEPT_ARRAY_ITEMS + 1;
        b = header(3, 0, 1);
        putString(b, "list");
        b.putInt(GgufType.ARRAY.id()).putInt(GgufType.STRING.id()).putLong(n);
        for (int i = 0; i < n - 1; i++) {
            putString(b, "a");
        }
        b.putLong(1L << 40);
        assertFails(write(Arrays.copyOf(b.array(), b.position() + 64)), "item " + (n - 1) + " of 'list'");
    }

    @Test
    void refusesAnArrayOfArrays() throws IOException {
        ByteBuffer b = header(3, 0, 1);
        putString(b, "nested");
        b.putInt(GgufType.ARRAY.id()).putInt(GgufType.ARRAY.id()).putLong(1);
        assertFails(write(Arrays.copyOf(b.array(), b.position() + 64)), "array of arrays");
    }

    @Test
    void refusesToReadAnArrayOfMoreItemsThanItsLimitThoughTheFileHoldsThem() throws IOException {
        long n = GgufReader.MAX_ARRAY_ITEMS + 1L;
        ByteBuffer b = header(3, 0, 1);
        putString(b, "big");
        b.putInt(GgufType.ARRAY.id()).putInt(GgufType.UINT8.id()).putLong(n);
        Path file = writeSparse(b, n);
        // the header only counts it...
        assertEquals(n, GgufReader.read(file).metadata().arrayLength("big").orElseThrow());
        // ...and reading it in full is refused before its items are
        try (GgufReader reader = GgufReader.open(file)) {
            var e = assertThrows(GgufException.class, () -> reader.value("big"));
            assertTrue(
                    e.getMessage()
                            .startsWith(file + ": 'big' has " + n + " items, too many to read into memory (at most "
                                    + GgufReader.MAX_ARRAY_ITEMS + ")"),
                    e.getMessage());
            e = assertThrows(GgufException.class, () -> reader.values(k -> true));
            assertTrue(e.getMessage().contains("too many to read into memory"), e.getMessage());
        }
    }

    @Test
    void reportsATruncatedHeaderAtEveryCut() throws IOException {
        Path good = dir.resolve("good.gguf");
        new GgufWriter()
                .put("general.architecture", GgufValue.string("llama"))
                .put("list", GgufValue.strings(List.of("a", "bc", "def")))
                .put("n", GgufValue.uint32(7))
                .tensor("w", GgmlType.F32, new long[] {8}, sink -> sink.putFloats(new float[8], 0, 8))
                .write(good);
        byte[] bytes = Files.readAllBytes(good);
        GgufFile header = GgufReader.read(good);
        for (int cut = 4; cut < header.dataOffset() + 32; cut++) {
            Path file = write(Arrays.copyOf(bytes, cut));
            var e = assertThrows(GgufException.class, () -> GgufReader.read(file), "cut at " + cut);
            assertTrue(e.getMessage().contains("truncated"), "cut at " + cut + ": " + e.getMessage());
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        }
    }

    @Test
    void reportsTensorDataBeyondTheEndOfTheFile() throws IOException {
        Path good = dir.resolve("t.gguf");
        new GgufWriter()
                .tensor("a", GgmlType.F32, new long[] {64}, sink -> sink.putFloats(new float[64], 0, 64))
                .tensor("b", GgmlType.F32, new long[] {64}, sink -> sink.putFloats(new float[64], 0, 64))
                .write(good);
        byte[] bytes = Files.readAllBytes(good);
        Path cut = write(Arrays.copyOf(bytes, bytes.length - 1));
        var e = assertThrows(GgufException.class, () -> GgufReader.read(cut));
        assertTrue(e.getMessage().contains("truncated: tensor 'b'"), e.getMessage());
    }

    @Test
    void refusesInconsistentTensorInfos() throws IOException {
        ByteBuffer b = header(3, 1, 0);
        putString(b, "t");
        b.putInt(5); // n_dims > GGML_MAX_DIMS
        assertFails(write(Arrays.copyOf(b.array(), b.position() + 64)), "5 dimensions");

        b = header(3, 1, 0);
        putString(b, "t");
        b.putInt(1).putLong(8).putInt(99).putLong(0);
        assertFails(write(Arrays.copyOf(b.array(), b.position() + 64)), "unknown ggml type 99");

        b = header(3, 1, 0);
        putString(b, "t");
        b.putInt(1).putLong(8).putInt(GgmlType.F32.id()).putLong(3);
        assertFails(write(Arrays.copyOf(b.array(), b.position() + 64)), "not a multiple of the alignment");

        b = header(3, 1, 0);
        putString(b, "t");
        b.putInt(2)
                .putLong(Long.MAX_VALUE / 2)
                .putLong(Long.MAX_VALUE / 2)
                .putInt(GgmlType.F32.id())
                .putLong(0);
        assertFails(write(Arrays.copyOf(b.array(), b.position() + 64)), "absurd shape");

        b = header(3, 2, 0);
        putString(b, "t");
        b.putInt(1).putLong(8).putInt(GgmlType.F32.id()).putLong(0);
        putString(b, "t");
        b.putInt(1).putLong(8).putInt(GgmlType.F32.id()).putLong(32);
        assertFails(write(Arrays.copyOf(b.array(), b.position() + 128)), "duplicate tensor name 't'");
    }

    @Test
    void refusesDuplicateKeysAndBadAlignment() throws IOException {
        ByteBuffer b = header(3, 0, 2);
        putString(b, "k");
        b.putInt(GgufType.UINT8.id()).put((byte) 1);
        putString(b, "k");
        b.putInt(GgufType.UINT8.id()).put((byte) 2);
        assertFails(write(Arrays.copyOf(b.array(), b.position())), "duplicate metadata key 'k'");

        b = header(3, 0, 1);
        putString(b, "general.alignment");
        b.putInt(GgufType.UINT32.id()).putInt(24);
        assertFails(write(Arrays.copyOf(b.array(), b.position())), "not a power of 2");

        b = header(3, 0, 1);
        putString(b, "general.alignment");
        b.putInt(GgufType.UINT64.id()).putLong(32);
        assertFails(write(Arrays.copyOf(b.array(), b.position())), "must be a UINT32");
    }

    @Test
    void aMissingFileIsABackendException() {
        var e = assertThrows(BackendException.class, () -> GgufReader.read(dir.resolve("nope.gguf")));
        assertTrue(e.getMessage().contains("no such file"), e.getMessage());
    }

    private static ByteBuffer header(int version, long tensors, long kvs) {
        ByteBuffer b = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
        b.put("GGUF".getBytes(StandardCharsets.US_ASCII))
                .putInt(version)
                .putLong(tensors)
                .putLong(kvs);
        return b;
    }

    private static void putString(ByteBuffer b, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        b.putLong(bytes.length).put(bytes);
    }

    private int files;

    private Path write(byte[] bytes) throws IOException {
        return Files.write(dir.resolve("f" + files++ + ".gguf"), bytes);
    }

    /** The bytes {@code b} holds, then {@code more} bytes of a hole: a file that holds what it claims, on no disk. */
    private Path writeSparse(ByteBuffer b, long more) throws IOException {
        Path file = write(Arrays.copyOf(b.array(), b.position()));
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(b.position() + more);
        }
        return file;
    }

    private static void assertFails(Path file, String expected) {
        var e = assertThrows(GgufException.class, () -> GgufReader.read(file));
        assertTrue(e.getMessage().contains(expected), "expected '" + expected + "' in: " + e.getMessage());
        assertTrue(e.getMessage().startsWith(file.toString()), "names the file: " + e.getMessage());
    }

    /** {@code rchar} of {@code /proc/thread-self/io}: the bytes this thread's read calls returned. */
    private static long bytesReadByThisThread() throws IOException {
        return Files.readAllLines(Path.of("/proc/thread-self/io")).stream()
                .filter(l -> l.startsWith("rchar:"))
                .mapToLong(l -> Long.parseLong(l.substring(6).strip()))
                .findFirst()
                .orElseThrow();
    }
}
