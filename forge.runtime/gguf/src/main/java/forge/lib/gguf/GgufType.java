package forge.lib.gguf;

/**
 * The types a GGUF metadata value can have, with their on-disk ids ({@code enum gguf_type} in
 * llama.cpp's {@code gguf.h}): the constants stand in that enum's order, so a type's id is its
 * ordinal ({@code GgufTypeTest} pins each one).
 */
public enum GgufType {
    UINT8(1),
    INT8(1),
    UINT16(2),
    INT16(2),
    UINT32(4),
    INT32(4),
    FLOAT32(4),
    BOOL(1),
    /** {@code uint64_t} length, then that many UTF-8 bytes without a terminator. */
    STRING(8),
    /** {@code int32_t} element type, {@code uint64_t} count, then the elements. */
    ARRAY(12),
    UINT64(8),
    INT64(8),
    FLOAT64(8);

    private static final GgufType[] BY_ID = values();

    private final int minSize;

    GgufType(int minSize) {
        this.minSize = minSize;
    }

    /** The type's id in the file. */
    public int id() {
        return ordinal();
    }

    /** The fewest bytes one value of this type takes in the file (its exact size when fixed). */
    public int minSize() {
        return minSize;
    }

    /** Whether a value of this type has a fixed size: every type but strings and arrays. */
    public boolean isFixedSize() {
        return this != STRING && this != ARRAY;
    }

    /** Whether this is one of the eight integer types. */
    public boolean isInteger() {
        return switch (this) {
            case UINT8, INT8, UINT16, INT16, UINT32, INT32, UINT64, INT64 -> true;
            default -> false;
        };
    }

    /** Whether this is {@code FLOAT32} or {@code FLOAT64}. */
    public boolean isFloat() {
        return this == FLOAT32 || this == FLOAT64;
    }

    /**
     * The type with the given id.
     *
     * @throws GgufException if there is none
     */
    public static GgufType ofId(int id) {
        if (id < 0 || id >= BY_ID.length) {
            throw new GgufException("unknown GGUF value type " + id);
        }
        return BY_ID[id];
    }
}
