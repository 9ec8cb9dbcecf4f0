package forge.lib.gguf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class GgufWriterTest {

    @TempDir
    Path dir;

    @Test
    void everyValueTypeSurvivesARoundTrip() {
        List<String> bigStrings =
                IntStream.range(0, 3000).mapToObj(i -> "tok" + i).toList();
        Map<String, GgufValue> values = new java.util.LinkedHashMap<>();
        values.put("u8", new GgufValue.Int(GgufType.UINT8, 255));
        values.put("i8", new GgufValue.Int(GgufType.INT8, Byte.MIN_VALUE));
        values.put("u16", new GgufValue.Int(GgufType.UINT16, 65535));
        values.put("i16", new GgufValue.Int(GgufType.INT16, Short.MIN_VALUE));
        values.put("u32", GgufValue.uint32(0xFFFF_FFFFL));
        values.put("i32", new GgufValue.Int(GgufType.INT32, -123456789));
        values.put("u64", new GgufValue.Int(GgufType.UINT64, -1L)); // 2^64 - 1
        values.put("i64", new GgufValue.Int(GgufType.INT64, Long.MIN_VALUE));
        values.put("f32", GgufValue.float32(1.5e-6f));
        values.put("f64", new GgufValue.Real(GgufType.FLOAT64, Math.PI));
        values.put("bool.true", GgufValue.bool(true));
        values.put("bool.false", GgufValue.bool(false));
        values.put("str", GgufValue.string("héllo\n{{ bos_token }} ✓ Ġ"));
        values.put("str.empty", GgufValue.string(""));
        values.put("arr.str", GgufValue.strings(List.of("a", "", "ü")));
        values.put("arr.i32", GgufValue.int32s(1, -2, Integer.MAX_VALUE));
        values.put("arr.f32", GgufValue.float32s(0.5f, -1f));
        values.put("arr.bool", new GgufValue.Array(GgufType.BOOL, List.of(true, false)));
        values.put("arr.u8", new GgufValue.Array(GgufType.UINT8, List.of(0L, 200L)));
        values.put("arr.i64", new GgufValue.Array(GgufType.INT64, List.of(Long.MAX_VALUE)));
        values.put("arr.f64", new GgufValue.Array(GgufType.FLOAT64, List.of(2.25)));
        values.put("arr.u16", new GgufValue.Array(GgufType.UINT16, List.of(65535L)));
        values.put("arr.empty", GgufValue.strings(List.of()));
        values.put("arr.big", GgufValue.strings(bigStrings));
        values.put("arr.big.i32", GgufValue.int32s(IntStream.range(0, 5000).toArray()));

        Path file = dir.resolve("values.gguf");
        new GgufWriter().putAll(values).write(file);

        try (GgufReader reader = GgufReader.open(file)) {
            GgufFile header = reader.file();
            assertEquals(3, header.version());
            assertEquals(
                    List.copyOf(values.keySet()), List.copyOf(header.types().keySet()), "keys in file order");
            for (Map.Entry<String, GgufValue> e : values.entrySet()) {
                GgufValue read = reader.value(e.getKey()).orElseThrow();
                assertEquals(e.getValue(), read, e.getKey());
                assertEquals(e.getValue().type(), header.types().get(e.getKey()), e.getKey());
            }
            var md = header.metadata();
            assertEquals(255L, md.values().get("u8"));
            assertEquals(-1L, md.values().get("u64"));
            assertEquals((double) 1.5e-6f, md.values().get("f32"));
            assertEquals(true, md.values().get("bool.true"));
            assertEquals("héllo\n{{ bos_token }} ✓ Ġ", md.string("str").orElseThrow());
            assertEquals(List.of("a", "", "ü"), md.list("arr.str").orElseThrow());
            assertEquals(
                    List.of(1L, -2L, (long) Integer.MAX_VALUE),
                    md.list("arr.i32").orElseThrow());
            // large arrays: counted in the header, read in full on demand
            assertFalse(md.values().containsKey("arr.big"));
            assertEquals(3000, md.arrayLength("arr.big").orElseThrow());
            assertEquals(5000, md.arrayLength("arr.big.i32").orElseThrow());
            assertEquals(3, md.arrayLength("arr.str").orElseThrow());
            assertEquals(bigStrings, ((GgufValue.Array) reader.value("arr.big").orElseThrow()).strings());
            assertTrue(reader.value("missing").isEmpty());
            assertEquals(
                    List.of("arr.str", "arr.i32"),
                    List.copyOf(reader.values(k -> k.equals("arr.str") || k.equals("arr.i32"))
                            .keySet()));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ggml-vocab-qwen2.gguf", "ggml-vocab-llama-spm.gguf", "ggml-vocab-gemma-4.gguf"})
    void copyingLlamaCppsVocabularyFilesReproducesThemByteForByte(String name) throws IOException {
        Path original = LlamaModels.file(name);
        Path copy = dir.resolve(name);
        try (GgufReader reader = GgufReader.open(original)) {
            new GgufWriter().putAll(reader.values(key -> true)).write(copy);
        }
        long metadataEnd = GgufReader.read(original).dataOffset();
        byte[] expected = Files.readAllBytes(original);
        byte[] actual = Files.readAllBytes(copy);
        assertEquals(metadataEnd, GgufReader.read(copy).dataOffset());
        assertTrue(
                Arrays.equals(expected, 0, (int) metadataEnd, actual, 0, (int) metadataEnd),
                "same bytes, every value with its type, strings with their exact UTF-8");
    }

    @Test
    void tensorsAreLaidOutAlignedWithTheirData() throws IOException {
        float[] f32 = {1f, -2.5f, 3.25f, 0f, 1e-3f};
        float[] f16 = {0.5f, -0.125f, 65504f, 1e-3f, 3.14159f, -7f};
        Path file = dir.resolve("tensors.gguf");
        new GgufWriter()
                .put("general.architecture", GgufValue.string("test"))
                .alignment(64)
                .tensor("a.weight", GgmlType.F32, new long[] {5}, sink -> sink.putFloats(f32, 0, f32.length))
                .tensor("b.weight", GgmlType.F16, new long[] {3, 2}, sink -> {
                    for (float v : f16) {
                        sink.putFloat(v);
                    }
                })
                .tensor("c.weight", GgmlType.Q8_0, new long[] {32, 1}, sink -> sink.putBytes(ByteBuffer.allocate(34)))
                .write(file);

        GgufFile header = GgufReader.read(file);
        assertEquals(64, header.alignment());
        assertEquals(0, header.dataOffset() % 64);
        assertEquals(
                List.of("a.weight", "b.weight", "c.weight"),
                header.tensors().stream().map(GgufTensorInfo::name).toList());
        GgufTensorInfo a = header.tensor("a.weight").orElseThrow();
        GgufTensorInfo b = header.tensor("b.weight").orElseThrow();
        GgufTensorInfo c = header.tensor("c.weight").orElseThrow();
        assertEquals(List.of(5L), a.dims());
        assertEquals(List.of(3L, 2L), b.dims());
        assertEquals(GgmlType.F16, b.type());
        assertEquals(0, a.offset());
        assertEquals(64, b.offset(), "20 bytes padded to 64");
        assertEquals(128, c.offset(), "12 bytes padded to 64");
        assertEquals(34, c.byteSize());
        assertEquals(header.dataOffset() + 192, header.fileSize(), "the last tensor is padded too");

        try (FileChannel ch = FileChannel.open(file)) {
            ByteBuffer buf = ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(buf, header.absoluteOffset(a));
            buf.flip();
            float[] readF32 = new float[5];
            buf.asFloatBuffer().get(readF32);
            assertArrayEquals(f32, readF32);

            buf = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(buf, header.absoluteOffset(b));
            buf.flip();
            for (float v : f16) {
                assertEquals(Float.float16ToFloat(Float.floatToFloat16(v)), Float.float16ToFloat(buf.getShort()));
            }
        }
    }

    @Test
    void progressRisesToOne() {
        List<Double> seen = new ArrayList<>();
        float[] chunk = new float[1 << 16];
        new GgufWriter()
                .tensor("big", GgmlType.F32, new long[] {1 << 16, 16}, sink -> {
                    for (int i = 0; i < 16; i++) {
                        sink.putFloats(chunk, 0, chunk.length);
                    }
                })
                .write(dir.resolve("p.gguf"), seen::add);
        assertTrue(seen.size() > 2, "reported along the way: " + seen);
        for (int i = 1; i < seen.size(); i++) {
            assertTrue(seen.get(i) >= seen.get(i - 1), "monotonic: " + seen);
        }
        assertEquals(1.0, seen.getLast());
    }

    @Test
    void aCallbackThatWritesTooLittleFailsAndLeavesNoFile() {
        Path file = dir.resolve("short.gguf");
        var writer = new GgufWriter().tensor("t", GgmlType.F32, new long[] {4}, sink -> sink.putFloat(1f));
        var e = assertThrows(GgufException.class, () -> writer.write(file));
        assertTrue(e.getMessage().contains("wrote 4 of 16 bytes"), e.getMessage());
        assertFalse(Files.exists(file));
        assertFalse(Files.exists(dir.resolve("short.gguf.part")));
    }

    @Test
    void aCallbackThatWritesTooMuchFails() {
        var writer =
                new GgufWriter().tensor("t", GgmlType.F16, new long[] {2}, sink -> sink.putFloats(new float[3], 0, 3));
        assertThrows(GgufException.class, () -> writer.write(dir.resolve("long.gguf")));
    }

    @Test
    void floatsGoOnlyIntoFloatTensors() {
        var writer = new GgufWriter().tensor("q", GgmlType.Q8_0, new long[] {32}, sink -> sink.putFloat(1f));
        var e = assertThrows(GgufException.class, () -> writer.write(dir.resolve("q.gguf")));
        assertTrue(e.getMessage().contains("putBytes"), e.getMessage());
    }

    @Test
    void badTensorsAndValuesAreRefusedWhenAdded() {
        var w = new GgufWriter();
        GgufWriter.TensorData none = sink -> {};
        assertThrows(
                IllegalArgumentException.class, () -> w.tensor("x".repeat(64), GgmlType.F32, new long[] {1}, none));
        assertThrows(IllegalArgumentException.class, () -> w.tensor("", GgmlType.F32, new long[] {1}, none));
        assertThrows(IllegalArgumentException.class, () -> w.tensor("t", GgmlType.F32, new long[] {}, none));
        assertThrows(
                IllegalArgumentException.class, () -> w.tensor("t", GgmlType.F32, new long[] {1, 1, 1, 1, 1}, none));
        assertThrows(IllegalArgumentException.class, () -> w.tensor("t", GgmlType.Q4_0, new long[] {31}, none));
        assertThrows(IllegalArgumentException.class, () -> w.tensor("t", GgmlType.F32, new long[] {-1}, none));
        w.tensor("t", GgmlType.F32, new long[] {1}, none);
        assertThrows(IllegalArgumentException.class, () -> w.tensor("t", GgmlType.F32, new long[] {1}, none));
        assertThrows(IllegalArgumentException.class, () -> w.alignment(48));
        assertThrows(
                IllegalArgumentException.class,
                () -> w.put("general.alignment", new GgufValue.Int(GgufType.UINT64, 32)));
        assertThrows(IllegalArgumentException.class, () -> new GgufValue.Int(GgufType.UINT8, 256));
        assertThrows(IllegalArgumentException.class, () -> GgufValue.uint32(-1));
        assertThrows(IllegalArgumentException.class, () -> new GgufValue.Array(GgufType.ARRAY, List.of()));
        assertThrows(IllegalArgumentException.class, () -> new GgufValue.Array(GgufType.INT32, List.of("x")));
        assertThrows(IllegalArgumentException.class, () -> new GgufValue.Array(GgufType.UINT8, List.of(-1L)));
        assertThrows(IllegalArgumentException.class, () -> new GgufValue.Real(GgufType.INT32, 1));
    }
}
