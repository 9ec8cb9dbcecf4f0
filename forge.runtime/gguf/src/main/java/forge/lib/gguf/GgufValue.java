package forge.lib.gguf;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One metadata value of a GGUF file, with its exact on-disk type: llama.cpp checks the type of
 * the keys it reads ({@code tokenizer.ggml.bos_token_id} must be a {@code UINT32}), so a value
 * that is copied from one file into another must keep it.
 *
 * <p>{@link #toMetadata()} gives the value as {@link forge.api.model.ModelMetadata} holds it:
 * {@code String}, {@code Boolean}, {@code Long} for every integer type, {@code Double} for both
 * float types, a {@code List} of those for arrays.
 */
public sealed interface GgufValue {

    /** The value's type in the file. */
    GgufType type();

    /** The value as {@link forge.api.model.ModelMetadata} holds it. */
    Object toMetadata();

    /** A {@code STRING}. */
    static Str string(String value) {
        return new Str(value);
    }

    /** A {@code BOOL}. */
    static Bool bool(boolean value) {
        return new Bool(value);
    }

    /** A {@code UINT8} in {@code [0, 255]}. */
    static Int uint8(int value) {
        return new Int(GgufType.UINT8, value);
    }

    /** An {@code INT8}. */
    static Int int8(byte value) {
        return new Int(GgufType.INT8, value);
    }

    /** A {@code UINT16} in {@code [0, 65535]}. */
    static Int uint16(int value) {
        return new Int(GgufType.UINT16, value);
    }

    /** An {@code INT16}. */
    static Int int16(short value) {
        return new Int(GgufType.INT16, value);
    }

    /** A {@code UINT32} in {@code [0, 2^32)}. */
    static Int uint32(long value) {
        return new Int(GgufType.UINT32, value);
    }

    /** An {@code INT32}. */
    static Int int32(int value) {
        return new Int(GgufType.INT32, value);
    }

    /** A {@code UINT64}; values of 2^63 and above are given as negative longs (two's complement). */
    static Int uint64(long value) {
        return new Int(GgufType.UINT64, value);
    }

    /** An {@code INT64}. */
    static Int int64(long value) {
        return new Int(GgufType.INT64, value);
    }

    /** A {@code FLOAT32}. */
    static Real float32(float value) {
        return new Real(GgufType.FLOAT32, value);
    }

    /** A {@code FLOAT64}. */
    static Real float64(double value) {
        return new Real(GgufType.FLOAT64, value);
    }

    /** An array of {@code STRING}s. */
    static Array strings(List<String> items) {
        return new Array(GgufType.STRING, items);
    }

    /** An array of {@code INT32}s. */
    static Array int32s(int... items) {
        List<Long> list = new ArrayList<>(items.length);
        for (int i : items) {
            list.add((long) i);
        }
        return new Array(GgufType.INT32, list);
    }

    /** An array of {@code FLOAT32}s. */
    static Array float32s(float... items) {
        List<Double> list = new ArrayList<>(items.length);
        for (float f : items) {
            list.add((double) f);
        }
        return new Array(GgufType.FLOAT32, list);
    }

    /** A {@code STRING} value. */
    record Str(String value) implements GgufValue {
        public Str {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public GgufType type() {
            return GgufType.STRING;
        }

        @Override
        public Object toMetadata() {
            return value;
        }
    }

    /** A {@code BOOL} value (one byte on disk). */
    record Bool(boolean value) implements GgufValue {
        @Override
        public GgufType type() {
            return GgufType.BOOL;
        }

        @Override
        public Object toMetadata() {
            return value;
        }
    }

    /**
     * A value of one of the eight integer types, held in a {@code long}.
     *
     * @param type  the integer type
     * @param value the value, in range for {@code type} ({@code UINT64} takes any long)
     */
    record Int(GgufType type, long value) implements GgufValue {
        public Int {
            Objects.requireNonNull(type, "type");
            checkInteger(type, value);
        }

        @Override
        public Object toMetadata() {
            return value;
        }
    }

    /**
     * A {@code FLOAT32} or {@code FLOAT64} value, held in a {@code double}.
     *
     * @param type  {@code FLOAT32} or {@code FLOAT64}
     * @param value the value ({@code FLOAT32} values are narrowed when written)
     */
    record Real(GgufType type, double value) implements GgufValue {
        public Real {
            Objects.requireNonNull(type, "type");
            if (!type.isFloat()) {
                throw new IllegalArgumentException("not a float type: " + type);
            }
        }

        @Override
        public Object toMetadata() {
            return value;
        }
    }

    /**
     * An array of one element type; GGUF has no arrays of arrays.
     *
     * @param elementType the type of every item
     * @param items       the items, as {@link #toMetadata()} gives them: {@code String},
     *                    {@code Boolean}, {@code Long} (in range for an integer type) or
     *                    {@code Double}
     */
    record Array(GgufType elementType, List<?> items) implements GgufValue {
        public Array {
            Objects.requireNonNull(elementType, "elementType");
            if (elementType == GgufType.ARRAY) {
                throw new IllegalArgumentException("GGUF has no arrays of arrays");
            }
            items = List.copyOf(items);
            for (Object item : items) {
                checkItem(elementType, item);
            }
        }

        @Override
        public GgufType type() {
            return GgufType.ARRAY;
        }

        @Override
        public Object toMetadata() {
            return items;
        }

        /** The number of items. */
        public int size() {
            return items.size();
        }

        /** The items as strings, for an array of {@code STRING}s. */
        @SuppressWarnings("unchecked")
        public List<String> strings() {
            requireElementType(GgufType.STRING);
            return (List<String>) items;
        }

        /** The items as longs, for an array of an integer type. */
        @SuppressWarnings("unchecked")
        public List<Long> longs() {
            if (!elementType.isInteger()) {
                throw new IllegalStateException("an array of " + elementType + ", not of integers");
            }
            return (List<Long>) items;
        }

        private void requireElementType(GgufType wanted) {
            if (elementType != wanted) {
                throw new IllegalStateException("an array of " + elementType + ", not of " + wanted);
            }
        }

        private static void checkItem(GgufType elementType, Object item) {
            switch (elementType) {
                case STRING -> {
                    if (!(item instanceof String)) {
                        throw new IllegalArgumentException("STRING array item is not a String: " + item);
                    }
                }
                case BOOL -> {
                    if (!(item instanceof Boolean)) {
                        throw new IllegalArgumentException("BOOL array item is not a Boolean: " + item);
                    }
                }
                case FLOAT32, FLOAT64 -> {
                    if (!(item instanceof Double)) {
                        throw new IllegalArgumentException(elementType + " array item is not a Double: " + item);
                    }
                }
                default -> {
                    if (!(item instanceof Long l)) {
                        throw new IllegalArgumentException(elementType + " array item is not a Long: " + item);
                    }
                    checkInteger(elementType, l);
                }
            }
        }
    }

    private static void checkInteger(GgufType type, long value) {
        long min;
        long max;
        switch (type) {
            case UINT8 -> {
                min = 0;
                max = 0xFF;
            }
            case INT8 -> {
                min = Byte.MIN_VALUE;
                max = Byte.MAX_VALUE;
            }
            case UINT16 -> {
                min = 0;
                max = 0xFFFF;
            }
            case INT16 -> {
                min = Short.MIN_VALUE;
                max = Short.MAX_VALUE;
            }
            case UINT32 -> {
                min = 0;
                max = 0xFFFF_FFFFL;
            }
            case INT32 -> {
                min = Integer.MIN_VALUE;
                max = Integer.MAX_VALUE;
            }
            case UINT64, INT64 -> {
                min = Long.MIN_VALUE;
                max = Long.MAX_VALUE;
            }
            default -> throw new IllegalArgumentException("not an integer type: " + type);
        }
        if (value < min || value > max) {
            throw new IllegalArgumentException(value + " is out of range for " + type);
        }
    }
}
