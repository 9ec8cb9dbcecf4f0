package forge.lib.gguf;

import java.util.List;
import java.util.Objects;
import java.util.stream.IntStream;

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
    default Object toMetadata() {
        return switch (this) {
            case Str s -> s.value();
            case Bool b -> b.value();
            case Int i -> i.value();
            case Real r -> r.value();
            case Array a -> a.items();
        };
    }

    /** A {@code STRING}. */
    static Str string(String value) {
        return new Str(value);
    }

    /** A {@code BOOL}. */
    static Bool bool(boolean value) {
        return new Bool(value);
    }

    /** A {@code UINT32} in {@code [0, 2^32)}. */
    static Int uint32(long value) {
        return new Int(GgufType.UINT32, value);
    }

    /** A {@code FLOAT32}. */
    static Real float32(float value) {
        return new Real(GgufType.FLOAT32, value);
    }

    /** An array of {@code STRING}s. */
    static Array strings(List<String> items) {
        return new Array(GgufType.STRING, items);
    }

    /** An array of {@code INT32}s. */
    static Array int32s(int... items) {
        return new Array(
                GgufType.INT32, IntStream.of(items).asLongStream().boxed().toList());
    }

    /** An array of {@code FLOAT32}s. */
    static Array float32s(float... items) {
        return new Array(
                GgufType.FLOAT32,
                IntStream.range(0, items.length)
                        .mapToObj(i -> (double) items[i])
                        .toList());
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
    }

    /** A {@code BOOL} value (one byte on disk). */
    record Bool(boolean value) implements GgufValue {
        @Override
        public GgufType type() {
            return GgufType.BOOL;
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
        // {min, max} of each integer type; a 64-bit type takes any long
        long[] range = switch (type) {
            case UINT8 -> new long[] {0, 0xFF};
            case INT8 -> new long[] {Byte.MIN_VALUE, Byte.MAX_VALUE};
            case UINT16 -> new long[] {0, 0xFFFF};
            case INT16 -> new long[] {Short.MIN_VALUE, Short.MAX_VALUE};
            case UINT32 -> new long[] {0, 0xFFFF_FFFFL};
            case INT32 -> new long[] {Integer.MIN_VALUE, Integer.MAX_VALUE};
            case UINT64, INT64 -> new long[] {Long.MIN_VALUE, Long.MAX_VALUE};
            default -> throw new IllegalArgumentException("not an integer type: " + type);
        };
        if (value < range[0] || value > range[1]) {
            throw new IllegalArgumentException(value + " is out of range for " + type);
        }
    }
}
