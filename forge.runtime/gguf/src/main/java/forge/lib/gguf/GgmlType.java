package forge.lib.gguf;

import java.util.Arrays;
import java.util.Optional;

/**
 * The element types a tensor can have ({@code enum ggml_type} in llama.cpp v0.5.0's {@code ggml.h}),
 * with the block layout that gives a tensor's size in bytes. Quantized types store
 * {@link #blockSize()} elements in {@link #typeSize()} bytes.
 */
public enum GgmlType {
    F32(0, 1, 4),
    F16(1, 1, 2),
    Q4_0(2, 32, 18),
    Q4_1(3, 32, 20),
    Q5_0(6, 32, 22),
    Q5_1(7, 32, 24),
    Q8_0(8, 32, 34),
    Q8_1(9, 32, 36),
    Q2_K(10, 256, 84),
    Q3_K(11, 256, 110),
    Q4_K(12, 256, 144),
    Q5_K(13, 256, 176),
    Q6_K(14, 256, 210),
    Q8_K(15, 256, 292),
    IQ2_XXS(16, 256, 66),
    IQ2_XS(17, 256, 74),
    IQ3_XXS(18, 256, 98),
    IQ1_S(19, 256, 50),
    IQ4_NL(20, 32, 18),
    IQ3_S(21, 256, 110),
    IQ2_S(22, 256, 82),
    IQ4_XS(23, 256, 136),
    I8(24, 1, 1),
    I16(25, 1, 2),
    I32(26, 1, 4),
    I64(27, 1, 8),
    F64(28, 1, 8),
    IQ1_M(29, 256, 56),
    BF16(30, 1, 2),
    TQ1_0(34, 256, 54),
    TQ2_0(35, 256, 66),
    MXFP4(39, 32, 17),
    NVFP4(40, 64, 36),
    Q1_0(41, 128, 18),
    Q2_0(42, 64, 18);

    private final int id;
    private final int blockSize;
    private final int typeSize;

    GgmlType(int id, int blockSize, int typeSize) {
        this.id = id;
        this.blockSize = blockSize;
        this.typeSize = typeSize;
    }

    /** The type's id in the file. */
    public int id() {
        return id;
    }

    /** How many elements one block holds (1 for the plain types). */
    public int blockSize() {
        return blockSize;
    }

    /** How many bytes one block takes. */
    public int typeSize() {
        return typeSize;
    }

    /**
     * The bytes of a row of {@code elements} elements ({@code ggml_row_size}).
     *
     * @throws IllegalArgumentException if {@code elements} is not a whole number of blocks
     */
    public long rowSize(long elements) {
        if (elements < 0 || elements % blockSize != 0) {
            throw new IllegalArgumentException(
                    name() + " rows hold whole blocks of " + blockSize + " elements, not " + elements);
        }
        return Math.multiplyExact(elements / blockSize, (long) typeSize);
    }

    /** The type with the given id, if llama.cpp v0.5.0 knows it. */
    public static Optional<GgmlType> ofId(int id) {
        return Arrays.stream(values()).filter(t -> t.id == id).findFirst();
    }
}
