package forge.lib.gguf;

import forge.api.model.ModelMetadata;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The header of a GGUF file: its metadata and where its tensors lie, read without their data.
 *
 * @param path       the file
 * @param version    the GGUF version (2 or 3)
 * @param metadata   the key/value metadata; arrays of more than
 *                   {@value GgufReader#MAX_KEPT_ARRAY_ITEMS} items are only counted, read them
 *                   with {@link GgufReader#value(String)}
 * @param types      the type of each metadata value by key, in file order ({@code ARRAY} for arrays)
 * @param tensors    the tensor infos, in file order
 * @param alignment  the alignment of the data section and of each tensor in it
 *                   ({@code general.alignment}, 32 when absent)
 * @param dataOffset where the data section starts in the file
 * @param fileSize   the size of the file in bytes
 */
public record GgufFile(
        Path path,
        int version,
        ModelMetadata metadata,
        Map<String, GgufType> types,
        List<GgufTensorInfo> tensors,
        long alignment,
        long dataOffset,
        long fileSize) {

    public GgufFile {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(metadata, "metadata");
        types = Collections.unmodifiableMap(new LinkedHashMap<>(types));
        tensors = List.copyOf(tensors);
    }

    /** The tensor named {@code name}. */
    public Optional<GgufTensorInfo> tensor(String name) {
        return tensors.stream().filter(t -> t.name().equals(name)).findFirst();
    }

    /** Where the data of {@code tensor} starts in the file. */
    public long absoluteOffset(GgufTensorInfo tensor) {
        return dataOffset + tensor.offset();
    }

    /** The bytes of all tensor data, the sum of the tensors' sizes (without padding). */
    public long tensorBytes() {
        return tensors.stream().mapToLong(GgufTensorInfo::byteSize).sum();
    }
}
