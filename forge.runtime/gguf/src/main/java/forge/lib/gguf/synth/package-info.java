/**
 * Synthetic models for tests and benchmarks: random-weight GGUF files of a chosen architecture
 * ({@code qwen2}, {@code llama} or {@code qwen3}) and shape, which llama.cpp loads and runs at the
 * cost of a real model of that shape. No trained weights can be downloaded here, so ForgeLM makes
 * its own. Two kinds serve the editor and RAG routes: the {@code coder} family's vocabulary has
 * Qwen2.5-Coder's fill-in-the-middle tokens ({@code /infill}), and
 * {@link forge.lib.gguf.synth.SyntheticModels#reranker} writes a Qwen3-Reranker-shaped model
 * with a rank head ({@code /v1/rerank}).
 *
 * <p>The vocabulary is either generated ({@link forge.lib.gguf.synth.SynthVocabulary}: a small
 * byte-level BPE with the special tokens and a chat template of the family under test) or
 * copied from one of llama.cpp's vocab-only files. Their text is noise: tests check protocol and
 * structure, not wording.
 *
 * {@snippet :
 * // a 512-token Llama 3 style model for a unit test, written in milliseconds
 * Path tiny = tempDir.resolve("tiny-llama.gguf");
 * SyntheticModels.write(SynthSpec.tiny("llama"), tiny);
 *
 * // Qwen2.5-0.5B's shape and vocabulary for a benchmark (about 1 GB), with progress
 * SynthSpec spec = SynthSpec.qwen25_05b(SynthSpec.llamaModelsDir().resolve("ggml-vocab-qwen2.gguf"));
 * SyntheticModels.write(spec, models.resolve("qwen2.5-0.5b-synth.gguf"),
 *         fraction -> progressBar.set(fraction));
 *
 * // which id ends a turn in the generated qwen vocabulary?
 * int imEnd = SynthVocabulary.generate(new SynthSpec.Generated("qwen", 512)).id("<|im_end|>");
 *
 * // a tiny reranker
 * SyntheticModels.reranker(SynthSpec.tiny("qwen").withArchitecture("qwen3")).write(dir.resolve("rerank.gguf"));
 * }
 */
package forge.lib.gguf.synth;
