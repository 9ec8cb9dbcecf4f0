package forge.lib.gguf;

import java.util.List;
import java.util.Objects;

/**
 * Where one tensor lies in a GGUF file, as its tensor-info entry says.
 *
 * @param name   the tensor's name, such as {@code blk.0.attn_q.weight}
 * @param dims   the size of each dimension, fastest-varying first ({@code ne[0]}, {@code ne[1]}, ...)
 * @param type   the element type
 * @param offset the offset of the tensor's data from the start of the data section
 *               ({@link GgufFile#dataOffset()}), not from the start of the file
 */
public record GgufTensorInfo(String name, List<Long> dims, GgmlType type, long offset) {

    public GgufTensorInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        dims = List.copyOf(dims);
        if (dims.size() > 4) {
            throw new IllegalArgumentException("a tensor has at most 4 dimensions, not " + dims.size());
        }
        for (long d : dims) {
            if (d < 0) {
                throw new IllegalArgumentException("negative dimension in " + dims);
            }
        }
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset);
        }
    }

    /** The number of elements, the product of {@link #dims()}. */
    public long elementCount() {
        long n = 1;
        for (long d : dims) {
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    /**
     * The size of the tensor's data in bytes ({@code ggml_nbytes}).
     *
     * @throws IllegalArgumentException if the first dimension is not a whole number of blocks
     */
    public long byteSize() {
        long rows = 1;
        for (int i = 1; i < dims.size(); i++) {
            rows = Math.multiplyExact(rows, dims.get(i));
        }
        long first = dims.isEmpty() ? 1 : dims.getFirst();
        return Math.multiplyExact(type.rowSize(first), rows);
    }
}
