/**
 * What the runtime knows about a model before and after it is loaded: its GGUF metadata and its
 * names.
 *
 * {@snippet :
 * ModelMetadata meta = descriptor.metadata();
 * String arch = meta.architecture().orElse("unknown");   // "qwen2"
 * boolean chatml = meta.chatTemplate().map(t -> t.contains("<|im_start|>")).orElse(false);
 * }
 */
package forge.api.model;
