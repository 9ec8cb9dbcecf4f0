package forge.lib.gguf;

import forge.api.model.ModelMetadata;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Reads the header of a GGUF file (version 2 or 3, little-endian): its metadata and tensor infos,
 * never its tensor data. Large arrays are skipped while reading the header, so the header of a
 * multi-gigabyte model takes milliseconds; read one in full, such as the vocabulary's
 * {@code tokenizer.ggml.tokens}, with {@link #value(String)}.
 *
 * <p>Every length and count in the file is checked against what is left of the file before
 * anything is allocated for it; a file that is not GGUF, of an unsupported version, truncated or
 * inconsistent fails with a {@link GgufException} that names the file and the problem.
 *
 * {@snippet :
 * GgufFile header = GgufReader.read(modelPath);           // header only, file closed again
 * String arch = header.metadata().architecture().orElseThrow();
 *
 * try (GgufReader reader = GgufReader.open(vocabPath)) {  // keeps the file open for more reads
 *     List<String> tokens = ((GgufValue.Array) reader.value("tokenizer.ggml.tokens").orElseThrow()).strings();
 * }
 * }
 *
 * <p>A reader is not thread-safe.
 */
public final class GgufReader implements AutoCloseable {

    /** Arrays of at most this many items are kept in {@link GgufFile#metadata()}; longer ones only counted. */
    public static final int MAX_KEPT_ARRAY_ITEMS = 1024;

    /** The longest string value read into memory (a chat template is a few KiB; a whole vocabulary is an array). */
    static final int MAX_STRING_BYTES = 64 << 20;

    /**
     * The most items of one array that {@link #value(String)} reads into memory: each becomes a boxed
     * value of 16 to 24 bytes however small it is in the file, so the file's own size is no bound.
     * The largest real arrays are vocabularies, a few hundred thousand tokens, scores and merges.
     */
    static final int MAX_ARRAY_ITEMS = 1 << 24;

    /** The longest key; llama.cpp's keys are a few dozen bytes. */
    static final int MAX_KEY_BYTES = 64 << 10;

    /** {@code GGML_MAX_NAME} is 64, including the terminating NUL. */
    static final int MAX_TENSOR_NAME_BYTES = 63;

    /** {@code GGML_MAX_DIMS}. */
    static final int MAX_DIMS = 4;

    private static final byte[] MAGIC = {'G', 'G', 'U', 'F'};

    private final Path path;
    private final FileChannel channel;
    private final Input in;
    private final Map<String, Long> valueOffsets = new LinkedHashMap<>();
    private final GgufFile file;

    private GgufReader(Path path, FileChannel channel) throws IOException {
        this.path = path;
        this.channel = channel;
        this.in = new Input(channel, path, channel.size());
        this.file = readHeader();
    }

    /**
     * Reads the header of the GGUF file at {@code path} and closes it again.
     *
     * @throws GgufException if the file cannot be read or is not a valid GGUF file
     */
    public static GgufFile read(Path path) {
        try (GgufReader reader = open(path)) {
            return reader.file();
        }
    }

    /**
     * Opens the GGUF file at {@code path} and reads its header; the file stays open for
     * {@link #value(String)} until {@link #close()}.
     *
     * @throws GgufException if the file cannot be read or is not a valid GGUF file
     */
    public static GgufReader open(Path path) {
        Objects.requireNonNull(path, "path");
        FileChannel channel;
        try {
            channel = FileChannel.open(path, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new GgufException(path + ": no such file", e);
        } catch (IOException e) {
            throw new GgufException(path + ": cannot open: " + e.getMessage(), e);
        }
        try {
            return new GgufReader(path, channel);
        } catch (IOException e) {
            closeQuietly(channel, e);
            throw new GgufException(path + ": cannot read: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(channel, e);
            throw e;
        }
    }

    /** The file's header. */
    public GgufFile file() {
        return file;
    }

    /**
     * The value stored under {@code key}, arrays in full whatever their length, with its exact type.
     *
     * @throws GgufException if the value cannot be read
     */
    public Optional<GgufValue> value(String key) {
        Long offset = valueOffsets.get(key);
        if (offset == null) {
            return Optional.empty();
        }
        try {
            in.seek(offset);
            GgufType type = in.type("type of '" + key + "'");
            return Optional.of(readFullValue(key, type));
        } catch (IOException e) {
            throw new GgufException(path + ": cannot read '" + key + "': " + e.getMessage(), e);
        }
    }

    /**
     * Every value whose key {@code keys} accepts, in file order, arrays in full: for instance
     * {@code values(k -> k.startsWith("tokenizer."))} to copy a vocabulary.
     *
     * @throws GgufException if a value cannot be read
     */
    public Map<String, GgufValue> values(Predicate<? super String> keys) {
        Map<String, GgufValue> out = new LinkedHashMap<>();
        for (String key : valueOffsets.keySet()) {
            if (keys.test(key)) {
                out.put(key, value(key).orElseThrow());
            }
        }
        return out;
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new GgufException(path + ": cannot close: " + e.getMessage(), e);
        }
    }

    // ---------------------------------------------------------------- header

    private GgufFile readHeader() throws IOException {
        // char magic[4];
        if (in.size < 4) {
            throw new GgufException(path + ": not a GGUF file (only " + in.size + " bytes)");
        }
        byte[] magic = in.bytes(4, "magic");
        if (!Arrays.equals(magic, MAGIC)) {
            throw new GgufException(path + ": not a GGUF file (magic is " + printable(magic) + ", expected \"GGUF\")");
        }
        // uint32_t version;
        long version = in.u32("version");
        if (version == 1) {
            throw new GgufException(path + ": GGUF version 1 is no longer supported (only 2 and 3)");
        }
        if (version != 2 && version != 3) {
            if ((version & 0xFFFF) == 0) {
                throw new GgufException(path + ": GGUF version " + version
                        + " looks byte-swapped: big-endian GGUF files are not supported");
            }
            throw new GgufException(path + ": unsupported GGUF version " + version + " (only 2 and 3)");
        }
        // int64_t n_tensors; int64_t n_kv;
        long tensorCount = in.i64("tensor count");
        long kvCount = in.i64("metadata count");
        // A tensor info takes at least 8 (name length) + 1 + 4 (n_dims) + 4 (type) + 8 (offset) bytes
        // (names are unique, so at most one is empty, and that tensor's data takes a byte or more),
        // a key/value at least 8 (key length) + 1 (keys are never empty) + 4 (type) + 1 bytes.
        checkCount(tensorCount, 25, "tensors");
        checkCount(kvCount, 14, "metadata entries");

        Map<String, Object> values = new LinkedHashMap<>();
        Map<String, Long> arrayLengths = new LinkedHashMap<>();
        Map<String, GgufType> types = new LinkedHashMap<>();
        for (long i = 0; i < kvCount; i++) {
            String key = in.string("key of metadata entry " + i, MAX_KEY_BYTES);
            if (key.isEmpty()) {
                throw new GgufException(path + ": metadata entry " + i + " has an empty key");
            }
            if (types.containsKey(key)) {
                throw new GgufException(path + ": duplicate metadata key '" + key + "'");
            }
            valueOffsets.put(key, in.position());
            GgufType type = in.type("type of '" + key + "'");
            types.put(key, type);
            if (type == GgufType.ARRAY) {
                GgufType elementType = in.type("element type of '" + key + "'");
                if (elementType == GgufType.ARRAY) {
                    throw new GgufException(path + ": '" + key + "' is an array of arrays, which GGUF does not allow");
                }
                long n = in.arrayLength(key, elementType);
                arrayLengths.put(key, n);
                if (n <= MAX_KEPT_ARRAY_ITEMS) {
                    List<Object> items = new ArrayList<>((int) n);
                    for (long j = 0; j < n; j++) {
                        items.add(scalar(key, elementType));
                    }
                    values.put(key, items);
                } else if (elementType.isFixedSize()) {
                    in.skip(n * elementType.minSize(), "items of '" + key + "'");
                } else {
                    in.skipStrings(n, key);
                }
            } else {
                values.put(key, scalar(key, type));
            }
        }

        long alignment = 32;
        GgufType alignmentType = types.get("general.alignment");
        if (alignmentType != null) {
            if (alignmentType != GgufType.UINT32) {
                throw new GgufException(path + ": general.alignment must be a UINT32, not " + alignmentType);
            }
            alignment = (Long) values.get("general.alignment");
            if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
                throw new GgufException(path + ": general.alignment " + alignment + " is not a power of 2");
            }
        }

        List<GgufTensorInfo> tensors = new ArrayList<>((int) Math.min(tensorCount, 1 << 16));
        Set<String> names = new HashSet<>();
        for (long i = 0; i < tensorCount; i++) {
            String name = in.string("name of tensor " + i, MAX_TENSOR_NAME_BYTES);
            if (!names.add(name)) {
                throw new GgufException(path + ": duplicate tensor name '" + name + "'");
            }
            long nDims = in.u32("dimension count of tensor '" + name + "'");
            if (nDims > MAX_DIMS) {
                throw new GgufException(
                        path + ": tensor '" + name + "' has " + nDims + " dimensions (at most " + MAX_DIMS + ")");
            }
            List<Long> dims = new ArrayList<>((int) nDims);
            for (int d = 0; d < nDims; d++) {
                long size = in.i64("dimension " + d + " of tensor '" + name + "'");
                if (size < 0) {
                    throw new GgufException(path + ": tensor '" + name + "' has negative dimension " + size);
                }
                dims.add(size);
            }
            int typeId = in.i32("type of tensor '" + name + "'");
            GgmlType type = GgmlType.ofId(typeId)
                    .orElseThrow(
                            () -> new GgufException(path + ": tensor '" + name + "' has unknown ggml type " + typeId));
            long offset = in.i64("offset of tensor '" + name + "'");
            if (offset < 0 || offset % alignment != 0) {
                throw new GgufException(path + ": tensor '" + name + "' has offset " + Long.toUnsignedString(offset)
                        + ", not a multiple of the alignment " + alignment);
            }
            GgufTensorInfo info = new GgufTensorInfo(name, dims, type, offset);
            try {
                info.byteSize();
            } catch (ArithmeticException e) {
                throw new GgufException(path + ": tensor '" + name + "' has an absurd shape " + dims, e);
            } catch (IllegalArgumentException e) {
                throw new GgufException(path + ": tensor '" + name + "': " + e.getMessage(), e);
            }
            tensors.add(info);
        }

        long end = in.position();
        long dataOffset = tensorCount == 0 ? end : align(end, alignment);
        if (dataOffset > in.size) {
            throw new GgufException(path + ": truncated: the data section would start at byte " + dataOffset
                    + " but the file has only " + in.size + " bytes");
        }
        for (GgufTensorInfo t : tensors) {
            long tensorEnd;
            try {
                tensorEnd = Math.addExact(Math.addExact(dataOffset, t.offset()), t.byteSize());
            } catch (ArithmeticException e) {
                throw new GgufException(path + ": tensor '" + t.name() + "' has an absurd offset " + t.offset(), e);
            }
            if (tensorEnd > in.size) {
                throw new GgufException(path + ": truncated: tensor '" + t.name() + "' ends at byte " + tensorEnd
                        + " but the file has only " + in.size + " bytes");
            }
        }
        return new GgufFile(
                path,
                (int) version,
                new ModelMetadata(values, arrayLengths),
                types,
                tensors,
                alignment,
                dataOffset,
                in.size);
    }

    private void checkCount(long count, int minBytesEach, String what) throws IOException {
        long room = in.remaining() / minBytesEach;
        if (count < 0 || count > room) {
            throw new GgufException(path + ": truncated or corrupt: the header claims " + Long.toUnsignedString(count)
                    + " " + what + " but the rest of the file has room for at most " + room);
        }
    }

    private Object scalar(String key, GgufType type) throws IOException {
        String what = key; // no message built per item: this runs once per vocabulary entry
        return switch (type) {
            case UINT8 -> (long) (in.bytes(1, what)[0] & 0xFF);
            case INT8 -> (long) in.bytes(1, what)[0];
            case UINT16 -> (long) (in.i16(what) & 0xFFFF);
            case INT16 -> (long) in.i16(what);
            case UINT32 -> in.u32(what);
            case INT32 -> (long) in.i32(what);
            case UINT64, INT64 -> in.i64(what);
            case FLOAT32 -> (double) Float.intBitsToFloat(in.i32(what));
            case FLOAT64 -> Double.longBitsToDouble(in.i64(what));
            case BOOL -> in.bytes(1, what)[0] != 0;
            case STRING -> in.string(what, MAX_STRING_BYTES);
            case ARRAY -> throw new IllegalStateException("arrays are not scalars");
        };
    }

    private GgufValue readFullValue(String key, GgufType type) throws IOException {
        if (type != GgufType.ARRAY) {
            return toValue(type, scalar(key, type));
        }
        GgufType elementType = in.type("element type of '" + key + "'");
        long n = in.arrayLength(key, elementType);
        if (n > MAX_ARRAY_ITEMS) {
            throw new GgufException(path + ": '" + key + "' has " + n + " items, too many to read into memory (at most "
                    + MAX_ARRAY_ITEMS + ")");
        }
        List<Object> items = new ArrayList<>((int) n);
        for (long j = 0; j < n; j++) {
            items.add(scalar(key, elementType));
        }
        return new GgufValue.Array(elementType, items);
    }

    private static GgufValue toValue(GgufType type, Object value) {
        return switch (type) {
            case STRING -> new GgufValue.Str((String) value);
            case BOOL -> new GgufValue.Bool((Boolean) value);
            case FLOAT32, FLOAT64 -> new GgufValue.Real(type, (Double) value);
            case ARRAY -> throw new IllegalStateException("arrays are read by readFullValue");
            default -> new GgufValue.Int(type, (Long) value);
        };
    }

    static long align(long offset, long alignment) {
        return (offset + alignment - 1) / alignment * alignment;
    }

    private static String printable(byte[] bytes) {
        StringBuilder sb = new StringBuilder("0x");
        for (byte b : bytes) {
            sb.append(String.format("%02x", b & 0xFF));
        }
        return sb.toString();
    }

    private static void closeQuietly(FileChannel channel, Exception primary) {
        try {
            channel.close();
        } catch (IOException e) {
            primary.addSuppressed(e);
        }
    }

    /** A little-endian read buffer over the file that knows how much of the file is left. */
    private static final class Input {
        private final FileChannel channel;
        private final Path path;
        private final long size;
        private final ByteBuffer buf = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
        /** The file offset of {@code buf}'s index 0. */
        private long bufStart;

        Input(FileChannel channel, Path path, long size) {
            this.channel = channel;
            this.path = path;
            this.size = size;
            seek(0);
        }

        long position() {
            return bufStart + buf.position();
        }

        long remaining() {
            return size - position();
        }

        void seek(long offset) {
            bufStart = offset;
            buf.clear().limit(0);
        }

        private void need(int n, String what) throws IOException {
            if (buf.remaining() >= n) {
                return;
            }
            if (remaining() < n) {
                throw truncated(what, n);
            }
            long pos = position();
            buf.compact();
            bufStart = pos;
            while (buf.position() < n) {
                int read = channel.read(buf, bufStart + buf.position());
                if (read < 0) {
                    throw truncated(what, n);
                }
            }
            buf.flip();
        }

        GgufException truncated(String what, long needed) {
            return new GgufException(path + ": truncated: " + what + " at byte " + position() + " needs " + needed
                    + " bytes but the file has only " + size + " bytes");
        }

        void skip(long n, String what) throws IOException {
            if (n < 0 || n > remaining()) {
                throw truncated(what, n);
            }
            if (n <= buf.remaining()) {
                buf.position(buf.position() + (int) n);
            } else {
                seek(position() + n);
            }
        }

        byte[] bytes(int n, String what) throws IOException {
            byte[] out = new byte[checkedLength(n, what)];
            if (n <= buf.capacity()) {
                need(n, what);
                buf.get(out);
                return out;
            }
            long start = position();
            ByteBuffer target = ByteBuffer.wrap(out);
            while (target.hasRemaining()) {
                if (channel.read(target, start + target.position()) < 0) {
                    throw truncated(what, n);
                }
            }
            seek(start + n);
            return out;
        }

        private int checkedLength(int n, String what) {
            if (n > remaining()) {
                throw truncated(what, n);
            }
            return n;
        }

        short i16(String what) throws IOException {
            need(2, what);
            return buf.getShort();
        }

        int i32(String what) throws IOException {
            need(4, what);
            return buf.getInt();
        }

        long u32(String what) throws IOException {
            return i32(what) & 0xFFFF_FFFFL;
        }

        long i64(String what) throws IOException {
            need(8, what);
            return buf.getLong();
        }

        /** A {@code uint64_t} length of something that must fit in the rest of the file. */
        long u64Length(String what) throws IOException {
            long length = i64(what);
            if (length < 0 || length > remaining()) {
                throw new GgufException(path + ": truncated: " + what + " at byte " + position() + " claims "
                        + Long.toUnsignedString(length) + " bytes but only " + remaining() + " are left in the file");
            }
            return length;
        }

        GgufType type(String what) throws IOException {
            int id = i32(what);
            if (id < 0 || id > GgufType.FLOAT64.id()) {
                throw new GgufException(path + ": " + what + " is " + id + ", not a GGUF value type");
            }
            return GgufType.ofId(id);
        }

        /** An array's {@code uint64_t} item count, checked against the rest of the file. */
        long arrayLength(String key, GgufType elementType) throws IOException {
            long n = i64("length of '" + key + "'");
            long room = remaining() / elementType.minSize();
            if (n < 0 || n > room) {
                throw new GgufException(path + ": '" + key + "' claims " + Long.toUnsignedString(n) + " items of "
                        + elementType + " but the rest of the file has room for at most " + room + " (truncated?)");
            }
            return n;
        }

        /** Skips {@code n} strings of array {@code key}: the hot loop of reading a vocabulary's header. */
        void skipStrings(long n, String key) throws IOException {
            for (long j = 0; j < n; j++) {
                long length;
                if (buf.remaining() >= 8) {
                    length = buf.getLong();
                } else {
                    length = i64("length of item " + j + " of '" + key + "'");
                }
                if (length < 0 || length > remaining()) {
                    throw new GgufException(path + ": truncated: item " + j + " of '" + key + "' at byte " + position()
                            + " claims " + Long.toUnsignedString(length) + " bytes but only " + remaining()
                            + " are left in the file");
                }
                if (length <= buf.remaining()) {
                    buf.position(buf.position() + (int) length);
                } else {
                    seek(position() + length);
                }
            }
        }

        String string(String what, int maxBytes) throws IOException {
            long length = u64Length("length of " + what);
            if (length > maxBytes) {
                throw new GgufException(
                        path + ": " + what + " is " + length + " bytes long, more than the limit of " + maxBytes);
            }
            return new String(bytes((int) length, what), StandardCharsets.UTF_8);
        }
    }
}
