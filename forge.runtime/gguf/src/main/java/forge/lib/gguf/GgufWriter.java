package forge.lib.gguf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.DoubleConsumer;

/**
 * Writes a GGUF version 3 file: metadata, tensor infos, then the tensor data, each tensor
 * produced by a callback at the moment it is written, so a model of any size streams to disk
 * through a small buffer. The layout is the one llama.cpp's loader expects: tensors in the order
 * they were added, each at the next multiple of the alignment ({@code general.alignment}, 32
 * unless set).
 *
 * {@snippet :
 * new GgufWriter()
 *         .put("general.architecture", GgufValue.string("llama"))
 *         .put("llama.block_count", GgufValue.uint32(2))
 *         .put("tokenizer.ggml.tokens", GgufValue.strings(List.of("a", "b")))
 *         .tensor("output_norm.weight", GgmlType.F32, new long[] {64}, sink -> {
 *             for (int i = 0; i < 64; i++) {
 *                 sink.putFloat(1f);
 *             }
 *         })
 *         .write(Path.of("model.gguf"), fraction -> log.info("{}%", (int) (fraction * 100)));
 * }
 *
 * <p>The file is written under a temporary name beside the target and moved into place when
 * complete, so a failed or interrupted write never leaves a half-written model under its name.
 * A writer is a builder: not thread-safe, and reusable for several identical files.
 */
public final class GgufWriter {

    /** {@code GGUF_DEFAULT_ALIGNMENT}. */
    public static final int DEFAULT_ALIGNMENT = 32;

    private static final int BUFFER_BYTES = 1 << 20;

    private final Map<String, GgufValue> metadata = new LinkedHashMap<>();
    private final List<Tensor> tensors = new ArrayList<>();
    private final Set<String> tensorNames = new HashSet<>();

    /**
     * Produces the data of one tensor into a {@link TensorSink}: exactly as many elements as the
     * tensor has, row after row ({@code ne[0]} fastest).
     */
    @FunctionalInterface
    public interface TensorData {
        void writeTo(TensorSink sink) throws IOException;
    }

    /**
     * Where a {@link TensorData} puts a tensor's elements. Floats are converted to the tensor's
     * type ({@code F32} or {@code F16}); other types take raw bytes.
     */
    public sealed interface TensorSink permits Sink {
        /** Appends one element of an {@code F32} or {@code F16} tensor. */
        void putFloat(float value) throws IOException;

        /** Appends {@code length} elements of an {@code F32} or {@code F16} tensor. */
        void putFloats(float[] values, int offset, int length) throws IOException;

        /** Appends raw bytes, already in the tensor's type (any type). */
        void putBytes(ByteBuffer bytes) throws IOException;

        /** How many bytes of the tensor are still to come. */
        long remainingBytes();

        /** The tensor's element type. */
        GgmlType type();
    }

    private record Tensor(GgufTensorInfo info, TensorData data) {}

    /** Sets metadata {@code key} (replacing an earlier value, which keeps its place). */
    public GgufWriter put(String key, GgufValue value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        if (key.isEmpty()) {
            throw new IllegalArgumentException("empty metadata key");
        }
        if (key.equals("general.alignment")) {
            if (!(value instanceof GgufValue.Int(GgufType type, long a))
                    || type != GgufType.UINT32
                    || a == 0
                    || (a & (a - 1)) != 0) {
                throw new IllegalArgumentException("general.alignment must be a UINT32 power of 2, not " + value);
            }
        }
        metadata.put(key, value);
        return this;
    }

    /** Sets every entry of {@code values}, in its iteration order. */
    public GgufWriter putAll(Map<String, ? extends GgufValue> values) {
        values.forEach(this::put);
        return this;
    }

    /** Sets {@code general.alignment}, the alignment of the data section and of each tensor. */
    public GgufWriter alignment(int alignment) {
        return put("general.alignment", GgufValue.uint32(alignment));
    }

    /** The metadata set so far, in order. */
    public Map<String, GgufValue> metadata() {
        return Collections.unmodifiableMap(metadata);
    }

    /**
     * Adds a tensor, laid out after the ones added before it.
     *
     * @param name the tensor's name (at most 63 bytes of UTF-8, unique)
     * @param type its element type
     * @param dims its dimensions, fastest-varying first ({@code {n_embd, n_vocab}} for {@code token_embd.weight})
     * @param data produces its elements when the file is written
     */
    public GgufWriter tensor(String name, GgmlType type, long[] dims, TensorData data) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(data, "data");
        int nameBytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (nameBytes == 0 || nameBytes > GgufReader.MAX_TENSOR_NAME_BYTES) {
            throw new IllegalArgumentException("tensor name must be 1 to 63 bytes: '" + name + "'");
        }
        if (tensorNames.contains(name)) {
            throw new IllegalArgumentException("duplicate tensor name '" + name + "'");
        }
        if (dims.length < 1 || dims.length > GgufReader.MAX_DIMS) {
            throw new IllegalArgumentException("tensor '" + name + "' needs 1 to 4 dimensions, not " + dims.length);
        }
        List<Long> dimList = new ArrayList<>(dims.length);
        for (long d : dims) {
            dimList.add(d);
        }
        // the offset is assigned when writing, once the alignment is final
        GgufTensorInfo info = new GgufTensorInfo(name, dimList, type, 0);
        try {
            info.byteSize(); // checks whole blocks and overflow now, not half-way through writing
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("tensor '" + name + "' is too large: " + dimList, e);
        }
        tensorNames.add(name);
        tensors.add(new Tensor(info, data));
        return this;
    }

    /** The bytes of the data section: every tensor, each padded to the alignment. */
    public long dataBytes() {
        long total = 0;
        for (Tensor t : tensors) {
            total = Math.addExact(total, GgufReader.align(t.info().byteSize(), alignment()));
        }
        return total;
    }

    /**
     * Writes the file.
     *
     * @throws GgufException if it cannot be written or a tensor's data has the wrong length
     */
    public void write(Path out) {
        write(out, fraction -> {});
    }

    /**
     * Writes the file, reporting the fraction of the tensor data written so far (0 to 1) to
     * {@code progress} as it goes, at most about once per MiB.
     *
     * @throws GgufException if it cannot be written or a tensor's data has the wrong length
     */
    public void write(Path out, DoubleConsumer progress) {
        Objects.requireNonNull(out, "out");
        Objects.requireNonNull(progress, "progress");
        Path absolute = out.toAbsolutePath();
        Path temp = absolute.resolveSibling(absolute.getFileName() + ".part");
        try {
            try (FileChannel channel = FileChannel.open(
                    temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
                writeTo(channel, progress);
                channel.force(false);
            }
            Files.move(temp, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            deleteQuietly(temp);
            throw new GgufException(out + ": cannot write: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            deleteQuietly(temp);
            throw e;
        }
    }

    private long alignment() {
        return metadata.get("general.alignment") instanceof GgufValue.Int(GgufType t, long a) ? a : DEFAULT_ALIGNMENT;
    }

    private void writeTo(FileChannel channel, DoubleConsumer progress) throws IOException {
        long alignment = alignment();
        Out out = new Out(channel);
        // struct gguf_header: magic, version, n_tensors, n_kv
        out.bytes(new byte[] {'G', 'G', 'U', 'F'});
        out.i32(3);
        out.i64(tensors.size());
        out.i64(metadata.size());
        for (Map.Entry<String, GgufValue> e : metadata.entrySet()) {
            out.string(e.getKey());
            writeValue(out, e.getValue());
        }
        long offset = 0;
        for (Tensor t : tensors) {
            GgufTensorInfo info = t.info();
            out.string(info.name());
            out.i32(info.dims().size());
            for (long d : info.dims()) {
                out.i64(d);
            }
            out.i32(info.type().id());
            out.i64(offset);
            offset += GgufReader.align(info.byteSize(), alignment);
        }
        out.padTo(alignment);

        long total = offset;
        long[] written = {0};
        for (Tensor t : tensors) {
            long size = t.info().byteSize();
            Sink sink = new Sink(out, t.info(), size, () -> {
                if (total > 0) {
                    progress.accept(Math.min(1.0, (double) (written[0] + out.sinceMark()) / total));
                }
            });
            out.mark();
            t.data().writeTo(sink);
            if (sink.remainingBytes() != 0) {
                throw new GgufException("tensor '" + t.info().name() + "': its data callback wrote "
                        + (size - sink.remainingBytes()) + " of " + size + " bytes");
            }
            out.padTo(alignment);
            written[0] += GgufReader.align(size, alignment);
        }
        out.flush();
        progress.accept(1.0);
    }

    private static void writeValue(Out out, GgufValue value) throws IOException {
        out.i32(value.type().id());
        switch (value) {
            case GgufValue.Array(GgufType elementType, List<?> items) -> {
                out.i32(elementType.id());
                out.i64(items.size());
                for (Object item : items) {
                    writeScalar(out, elementType, item);
                }
            }
            default -> writeScalar(out, value.type(), value.toMetadata());
        }
    }

    private static void writeScalar(Out out, GgufType type, Object v) throws IOException {
        switch (type) {
            // a fixed-size type's minSize is its exact width
            case UINT8, INT8, UINT16, INT16, UINT32, INT32, UINT64, INT64 -> out.number((Long) v, type.minSize());
            case FLOAT32 -> out.number(Float.floatToRawIntBits((float) (double) (Double) v), 4);
            case FLOAT64 -> out.number(Double.doubleToRawLongBits((Double) v), 8);
            case BOOL -> out.number((Boolean) v ? 1 : 0, 1);
            case STRING -> out.string((String) v);
            case ARRAY -> throw new IllegalArgumentException("GGUF has no arrays of arrays");
        }
    }

    private static void deleteQuietly(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException ignored) {
            // the original failure is the one worth reporting
        }
    }

    /** A little-endian write buffer over the file. */
    private static final class Out {
        private final FileChannel channel;
        private final ByteBuffer buf = ByteBuffer.allocateDirect(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        private long flushed;
        private long mark;

        Out(FileChannel channel) {
            this.channel = channel;
        }

        long position() {
            return flushed + buf.position();
        }

        void mark() {
            mark = position();
        }

        long sinceMark() {
            return position() - mark;
        }

        /** Makes room for {@code n} bytes; returns whether it flushed. */
        boolean room(int n) throws IOException {
            if (buf.remaining() >= n) {
                return false;
            }
            flush();
            return true;
        }

        void flush() throws IOException {
            buf.flip();
            while (buf.hasRemaining()) {
                flushed += channel.write(buf);
            }
            buf.clear();
        }

        /** The low {@code bytes} (1, 2, 4 or 8) bytes of {@code bits}: a GGUF number of that width. */
        void number(long bits, int bytes) throws IOException {
            room(bytes);
            switch (bytes) {
                case 1 -> buf.put((byte) bits);
                case 2 -> buf.putShort((short) bits);
                case 4 -> buf.putInt((int) bits);
                case 8 -> buf.putLong(bits);
                default -> throw new IllegalArgumentException("no GGUF number is " + bytes + " bytes wide");
            }
        }

        void i32(int v) throws IOException {
            number(v, 4);
        }

        void i64(long v) throws IOException {
            number(v, 8);
        }

        void bytes(byte[] b) throws IOException {
            bytes(ByteBuffer.wrap(b));
        }

        void bytes(ByteBuffer b) throws IOException {
            while (b.hasRemaining()) {
                room(1);
                int n = Math.min(b.remaining(), buf.remaining());
                buf.put(buf.position(), b, b.position(), n);
                buf.position(buf.position() + n);
                b.position(b.position() + n);
            }
        }

        void string(String s) throws IOException {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            i64(b.length);
            bytes(b);
        }

        void padTo(long alignment) throws IOException {
            long pad = GgufReader.align(position(), alignment) - position();
            for (long i = 0; i < pad; i++) {
                number(0, 1);
            }
        }
    }

    /** The one {@link TensorSink}: converts, counts and reports progress at each flush. */
    private static final class Sink implements TensorSink {
        private final Out out;
        private final GgufTensorInfo info;
        private final Runnable onFlush;
        private long remaining;

        Sink(Out out, GgufTensorInfo info, long size, Runnable onFlush) {
            this.out = out;
            this.info = info;
            this.remaining = size;
            this.onFlush = onFlush;
        }

        @Override
        public void putFloat(float value) throws IOException {
            switch (info.type()) {
                case F32 -> {
                    take(4);
                    out.buf.putFloat(value);
                }
                case F16 -> {
                    take(2);
                    out.buf.putShort(Float.floatToFloat16(value));
                }
                default -> throw notFloat();
            }
        }

        @Override
        public void putFloats(float[] values, int offset, int length) throws IOException {
            Objects.checkFromIndexSize(offset, length, values.length);
            int width = switch (info.type()) {
                case F32 -> 4;
                case F16 -> 2;
                default -> throw notFloat();
            };
            int i = offset;
            int end = offset + length;
            while (i < end) {
                int n = Math.min(end - i, BUFFER_BYTES / width);
                take((long) n * width);
                ByteBuffer buf = out.buf;
                if (width == 4) {
                    for (int k = 0; k < n; k++) {
                        buf.putFloat(values[i + k]);
                    }
                } else {
                    for (int k = 0; k < n; k++) {
                        buf.putShort(Float.floatToFloat16(values[i + k]));
                    }
                }
                i += n;
            }
        }

        @Override
        public void putBytes(ByteBuffer bytes) throws IOException {
            if (bytes.remaining() > remaining) {
                throw tooMuch(bytes.remaining());
            }
            remaining -= bytes.remaining();
            out.bytes(bytes);
        }

        @Override
        public long remainingBytes() {
            return remaining;
        }

        @Override
        public GgmlType type() {
            return info.type();
        }

        /** Reserves {@code n} bytes of the tensor and of the buffer (n never exceeds the buffer). */
        private void take(long n) throws IOException {
            if (n > remaining) {
                throw tooMuch(n);
            }
            remaining -= n;
            if (out.room((int) n)) {
                onFlush.run();
            }
        }

        private GgufException tooMuch(long n) {
            return new GgufException("tensor '" + info.name() + "': " + n + " more bytes, but only " + remaining
                    + " of its " + info.byteSize() + " are left");
        }

        private GgufException notFloat() {
            return new GgufException("tensor '" + info.name() + "' is " + info.type()
                    + ": floats can only be written to F32 and F16 tensors; use putBytes");
        }
    }
}
