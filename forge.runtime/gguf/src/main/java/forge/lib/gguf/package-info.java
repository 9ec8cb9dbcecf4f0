/**
 * GGUF files in pure Java: {@link forge.lib.gguf.GgufReader} reads a file's header (metadata
 * and tensor infos, never the tensor data) in milliseconds whatever the model's size, and
 * {@link forge.lib.gguf.GgufWriter} streams a new file to disk tensor by tensor.
 *
 * <p>The format is llama.cpp v0.5.0's ({@code ggml/include/gguf.h}): little-endian, versions 2
 * and 3; every value keeps its exact {@link forge.lib.gguf.GgufType} because llama.cpp
 * checks the types of the keys it reads.
 *
 * {@snippet :
 * // What is this model? (header only; arrays over 1024 items are only counted)
 * GgufFile header = GgufReader.read(Path.of("qwen2.5-0.5b-instruct-q8_0.gguf"));
 * String arch = header.metadata().architecture().orElseThrow();         // "qwen2"
 * long vocab = header.metadata().arrayLength("tokenizer.ggml.tokens").orElseThrow();
 *
 * // Copy a vocabulary into a new file
 * try (GgufReader vocab = GgufReader.open(Path.of("ggml-vocab-qwen2.gguf"))) {
 *     new GgufWriter()
 *             .put("general.architecture", GgufValue.string("qwen2"))
 *             .putAll(vocab.values(key -> key.startsWith("tokenizer.")))
 *             .write(Path.of("vocab-copy.gguf"));
 * }
 * }
 */
package forge.lib.gguf;
