package forge.api.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The key/value metadata of a GGUF file, as read without loading its tensors.
 *
 * <p>Values are {@code String}, {@code Boolean}, a boxed number ({@code Long} for every integer
 * type, {@code Double} for floats) or a {@code List} of those. Large arrays (the vocabulary's
 * tokens, scores and merges) are summarised by their length only: {@link #arrayLength(String)}.
 *
 * @param values       scalar and small-array values by key, in file order
 * @param arrayLengths the length of every array value, kept or not, by key
 */
public record ModelMetadata(Map<String, Object> values, Map<String, Long> arrayLengths) {

    /** The metadata of a model whose file has none (or could not be read). */
    public static final ModelMetadata EMPTY = new ModelMetadata(Map.of(), Map.of());

    public ModelMetadata {
        values = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(values)));
        arrayLengths = Map.copyOf(arrayLengths);
    }

    /** The value of {@code key} when it is a string. */
    public Optional<String> string(String key) {
        return values.get(key) instanceof String s ? Optional.of(s) : Optional.empty();
    }

    /** The value of {@code key} when it is an integer of any width. */
    public OptionalLong integer(String key) {
        return values.get(key) instanceof Long l ? OptionalLong.of(l) : OptionalLong.empty();
    }

    /** The value of {@code key} when it is an array kept in full. */
    public Optional<List<?>> list(String key) {
        return values.get(key) instanceof List<?> l ? Optional.of(l) : Optional.empty();
    }

    /** The length of the array stored under {@code key}, whether or not its items were kept. */
    public OptionalLong arrayLength(String key) {
        Long n = arrayLengths.get(key);
        return n == null ? OptionalLong.empty() : OptionalLong.of(n);
    }

    /** {@code general.architecture}, such as {@code qwen2} or {@code llama}. */
    public Optional<String> architecture() {
        return string("general.architecture");
    }

    /** {@code general.name}, the model's display name. */
    public Optional<String> name() {
        return string("general.name");
    }

    /** {@code general.basename}, the model's family base name when the converter wrote one. */
    public Optional<String> basename() {
        return string("general.basename");
    }

    /** {@code tokenizer.chat_template}, the Jinja chat template shipped with the model. */
    public Optional<String> chatTemplate() {
        return string("tokenizer.chat_template");
    }

    /** {@code <arch>.context_length}, the context the model was trained for. */
    public OptionalLong contextLength() {
        return architecture().map(a -> integer(a + ".context_length")).orElse(OptionalLong.empty());
    }
}
