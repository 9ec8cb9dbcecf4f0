/**
 * The llama.cpp backend's product classes (not exported: the runtime sees them only as
 * {@code forge.api.backend} interfaces through {@link forge.backend.llamacpp.LlamaCppProvider}).
 *
 * <h2>Native lifecycle: who owns what</h2>
 *
 * <table>
 * <caption>Owners of native memory</caption>
 * <tr><th>Object</th><th>C object</th><th>Arena</th><th>Threads</th></tr>
 * <tr><td>{@code LlamaLibrary} (ffm)</td><td>the three shared libraries, the log callback stub</td>
 *     <td>{@code Arena.global()}: loaded once, never unloaded</td><td>any</td></tr>
 * <tr><td>{@link forge.backend.llamacpp.LlamaModel}</td><td>{@code llama_model}, its {@code llama_vocab}</td>
 *     <td>its own shared arena, {@code llama_model_free} attached as cleanup</td>
 *     <td>any (tokenize, detokenize, metadata)</td></tr>
 * <tr><td>{@link forge.backend.llamacpp.LlamaContext}</td><td>{@code llama_context}, its {@code llama_memory_t}</td>
 *     <td>its own confined arena, {@code llama_free} attached</td><td>the creating (engine) thread only</td></tr>
 * <tr><td>{@code LlamaThreadpools}</td><td>one or two {@code ggml_threadpool}s (decode, prefill)</td>
 *     <td>the context's arena, made before the context so that {@code ggml_threadpool_free} runs
 *     after {@code llama_free}</td><td>ggml's own worker threads; driven by the context's thread</td></tr>
 * <tr><td>{@code LlamaBatch}</td><td>{@code llama_batch} from {@code llama_batch_init}</td>
 *     <td>its own confined arena; {@code llama_batch_free} before the arena closes</td><td>the context's thread</td></tr>
 * <tr><td>{@link forge.backend.llamacpp.LlamaSampler}</td><td>a {@code llama_sampler} chain and its stages</td>
 *     <td>its own confined arena, {@code llama_sampler_free} attached</td><td>the context's thread</td></tr>
 * <tr><td>a single call</td><td>strings, params structs, token buffers, the load-progress stub</td>
 *     <td>{@code try (Arena call = Arena.ofConfined())}</td><td>the caller</td></tr>
 * </table>
 *
 * <p>Closing is nested and idempotent: samplers and the batch close with their context, contexts
 * must be closed before their model (the model refuses otherwise, since llama.cpp would use freed
 * weights), and a second {@code close()} does nothing. Every C pointer is a segment attached to its
 * owner's arena, so a use after close fails in Java ({@code IllegalStateException}, translated to
 * a {@link forge.api.BackendException}) instead of touching freed memory, and a shared arena
 * cannot close while a downcall on another thread still uses it.
 *
 * <h2>What is checked in Java, because llama.cpp would abort the process</h2>
 * Token ids (vocabulary lookups use {@code std::vector::at}), sampling indices without logits
 * ({@code GGML_ASSERT}), logit-bias tokens (indexed unchecked), sequence ids, and whether a file
 * exists and starts with {@code GGUF}. llama.cpp itself checks truncated files, invalid grammars
 * and batches it cannot place; their failures come back as {@code BackendException}s carrying the
 * last error line llama.cpp logged on the calling thread.
 *
 * {@snippet :
 * Backend backend = new LlamaCppProvider().create(new BackendContext(home, Map.of("llama.home", llamaHome)));
 * try (LoadedModel model = backend.load(ModelLoadParams.of(path), LoadProgress.NONE);
 *      InferenceContext ctx = model.newContext(ContextParams.of(2048, 4, 2));   // on the engine thread
 *      TokenSampler sampler = ctx.sampler(SamplingParams.GREEDY)) {
 *     int[] prompt = model.vocabulary().tokenize("Hello", true, true);
 *     for (int i = 0; i < prompt.length; i++) {
 *         ctx.batch().add(prompt[i], i, 0, i == prompt.length - 1);
 *     }
 *     ctx.decode();
 *     int next = sampler.sample(prompt.length - 1);
 * }
 * }
 */
package forge.backend.llamacpp;
