/**
 * The llama.cpp backend's product classes (not exported: the runtime sees them only as
 * {@code forge.api.backend} interfaces through {@link forge.backend.llamacpp.LlamaCppProvider}).
 *
 * <h2>Native lifecycle: who owns what</h2>
 *
 * <table>
 * <caption>Owners of native memory</caption>
 * <tr><th>Object</th><th>C object</th><th>Arena</th><th>Threads</th></tr>
 * <tr><td>{@code LlamaLibrary} (ffm)</td><td>the three shared libraries, the preloaded ones (CUDA runtime),
 *     the compute backends, the log callback stub</td>
 *     <td>{@code Arena.global()}: loaded once, by the chosen backend's {@code create} only (a probe
 *     loads nothing), never unloaded</td><td>any</td></tr>
 * <tr><td>{@link forge.backend.llamacpp.LlamaModel}</td><td>{@code llama_model}, its {@code llama_vocab}</td>
 *     <td>its own shared arena, {@code llama_model_free} attached as cleanup</td>
 *     <td>any (tokenize, detokenize, metadata)</td></tr>
 * <tr><td>{@code LlamaLoraAdapter}</td><td>{@code llama_adapter_lora} ({@code llama_adapter_lora_init})</td>
 *     <td>the model's arena, without a cleanup of its own: {@code llama_model_free} frees the adapters
 *     the model holds, so an adapter lives exactly as long as its model; never freed by hand, so
 *     never freed while a context (and its decode) could use it, since contexts close first</td>
 *     <td>loaded on the model's loader thread; applied by a context's thread
 *     ({@code llama_set_adapters_lora})</td></tr>
 * <tr><td>{@link forge.backend.llamacpp.LlamaContext}</td><td>{@code llama_context}, its {@code llama_memory_t}</td>
 *     <td>its own confined arena, {@code llama_free} attached</td><td>the creating (engine) thread only</td></tr>
 * <tr><td>{@code LlamaThreadpools}</td><td>one or two {@code ggml_threadpool}s (decode, prefill)</td>
 *     <td>the context's arena, made before the context so that {@code ggml_threadpool_free} runs
 *     after {@code llama_free}</td><td>ggml's own worker threads; driven by the context's thread</td></tr>
 * <tr><td>{@code LlamaBatch}</td><td>{@code llama_batch} from {@code llama_batch_init}</td>
 *     <td>its own confined arena; {@code llama_batch_free} before the arena closes</td><td>the context's thread</td></tr>
 * <tr><td>{@link forge.backend.llamacpp.LlamaSampler}</td><td>a {@code llama_sampler} chain and its stages</td>
 *     <td>its own confined arena, {@code llama_sampler_free} attached</td><td>the context's thread</td></tr>
 * <tr><td>{@code Mtmd} (ffm)</td><td>libmtmd (built by {@code plugins/llamacpp/mtmd.sh} against the
 *     loaded libllama and ggml, whose sonames its {@code DT_NEEDED} names, so the loader reuses them)</td>
 *     <td>{@code Arena.global()}: loaded on the first projector, after llama.cpp, never unloaded</td>
 *     <td>any</td></tr>
 * <tr><td>{@link forge.backend.llamacpp.LlamaProjector}</td><td>{@code mtmd_context} (the CLIP
 *     encoder's weights and compute buffers; it reads its model's vocabulary)</td>
 *     <td>its own shared arena, {@code mtmd_free} attached; loaded with its model
 *     ({@link forge.backend.llamacpp.LlamaModel#loadProjector}), closed by the model's
 *     {@code close} before {@code llama_model_free}</td>
 *     <td>{@code tokenize}: any; {@code eval}: the context's thread, one encode at a time (a lock:
 *     {@code mtmd_encode_chunk} writes the projector's one output buffer)</td></tr>
 * <tr><td>{@link forge.backend.llamacpp.MediaPrompt}</td><td>{@code mtmd_input_chunks} of one prompt
 *     (text tokens, the preprocessed image tensors)</td>
 *     <td>its own shared arena, {@code mtmd_input_chunks_free} attached; made by {@code tokenize}
 *     ({@code LoadedModel.media}) on the request's thread, decoded chunk by chunk by {@code eval}
 *     ({@code InferenceContext.decodeMedia}) on the engine's; counted holders (the route, each
 *     admitted request), the last {@code close} frees it, so never during an encode. A prompt split
 *     from the sizes of images decoded before (placeholder bitmaps: no pixels) makes its second
 *     split, with the pixels, on the engine's thread the first time one of its chunks must be
 *     encoded, and frees it with itself</td>
 *     <td>any, one at a time</td></tr>
 * <tr><td>an image being read</td><td>the {@code stb_image} pixels, the {@code mtmd_bitmap}</td>
 *     <td>the tokenize call's confined arena; {@code stbi_image_free} once the bitmap has copied
 *     them, {@code mtmd_bitmap_free} once {@code mtmd_tokenize} has preprocessed it</td><td>the caller</td></tr>
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
 * A C++ exception or {@code GGML_ASSERT} inside a downcall ends the JVM, and a native stack
 * overflow does too. Every llama.cpp call a request can reach, what in it can throw, abort or
 * recurse (read from the v0.5.0 source), and what stops it first:
 * <table>
 * <caption>Request-reachable llama.cpp calls</caption>
 * <tr><th>call</th><th>can throw, abort or recurse</th><th>kept safe by</th><th>test</th></tr>
 * <tr><td>{@code llama_tokenize}</td><td>SPM/UGM byte fallback uses {@code token_to_id.at} (throws
 *     for a vocabulary without byte tokens)</td><td>text is valid UTF-8 (the HTTP layer refuses
 *     lone surrogates and invalid UTF-8); an SPM/UGM vocabulary that cannot spell every byte is refused
 *     at load ({@code LlamaVocabulary.checkByteFallback})</td><td>{@code HostileInputTest}, {@code JsonTest},
 *     {@code LlamaVocabularyTest.aSentencePieceVocabularyThatCannotSpellEveryByte...}</td></tr>
 * <tr><td>{@code llama_token_to_piece}, {@code llama_detokenize}</td><td>{@code id_to_token.at},
 *     {@code cache.at} throw for an unknown id</td><td>{@link LlamaVocabulary#checkToken} on every
 *     id; request token ids checked against the vocabulary before use</td>
 *     <td>{@code LlamaVocabularyTest}, {@code OpenAiEndpointsTest}</td></tr>
 * <tr><td>{@code llama_decode}</td><td>asserts on positions, sequence ids and, for non-causal
 *     models, a batch over {@code n_ubatch}; invalid token ids are a return code</td><td>the engine
 *     builds every batch (positions in order, sequence ids below the slots); the embedder's batch and
 *     ubatch are as large as its longest input</td><td>{@code LlamaEngineTest}</td></tr>
 * <tr><td>{@code llama_get_logits_ith}</td><td>{@code GGML_ABORT} in debug builds for an index
 *     without logits</td><td>{@link LlamaContext#checkOutput}</td><td>{@code LlamaContextTest}</td></tr>
 * <tr><td>{@code llama_memory_seq_cp}</td><td>{@code GGML_ASSERT} on a partial copy across KV
 *     streams</td><td>refused in Java: whole-stream copies only</td><td>{@code LlamaContextTest}</td></tr>
 * <tr><td>{@code llama_sampler_init_grammar(_lazy_patterns)}</td><td>recursive parser (group
 *     nesting), recursive and unmemoised left-recursion walk, repetition expansion; parse errors
 *     are caught and return NULL</td><td>{@code forge.lib.grammar.GbnfGrammar} checks every
 *     grammar first: nesting, reference depth, walk steps, repetitions, size</td>
 *     <td>{@code GbnfGrammarTest}, {@code StructuredOutputEndToEndTest}</td></tr>
 * <tr><td>{@code llama_sampler_sample} (grammar accept)</td><td>throws "Unexpected empty grammar
 *     stack" for a token the grammar refuses, {@code GGML_ABORT} for an end token it refuses, and
 *     asserts {@code 0 <= selected < size}</td><td>{@link SamplingGuard}: the grammar accepts only a
 *     token it admits when asked alone, a -inf choice fails the request, {@code selected} is kept in
 *     range</td><td>{@code LlamaEngineTest.aRequestWhoseConstraintsAllowNoTokenFailsAlone...}</td></tr>
 * <tr><td>lazy grammar trigger</td><td>the accept that fires the trigger replays the output from
 *     the trigger into the grammar and throws on a refused piece; {@code std::regex} search over the
 *     output (the patterns are literal, so its recursion is bounded by the pattern)</td>
 *     <td>{@link SamplingGuard} checks the replay on a strict copy before forwarding it</td>
 *     <td>{@code LlamaEngineTest.aTriggerWhoseReplayTheGrammarRefuses...}</td></tr>
 * <tr><td>{@code stbi_load_from_memory} (libmtmd)</td><td>decodes whatever the header claims:
 *     a small file can ask for gigabytes</td><td>the format is read from the first bytes (PNG, JPEG,
 *     GIF, BMP; anything else refused) and the pixel count from the header
 *     ({@code stbi_info_from_memory}) against a limit before decoding</td>
 *     <td>{@code LlamaProjectorTest.badImagesAreRefusedBeforeAnyPixelIsDecoded}</td></tr>
 * <tr><td>{@code mtmd_init_from_file}</td><td>C++ exceptions (a projector that is not one, of an
 *     unknown type, or whose embedding width is not the model's) are caught and logged, NULL returned;
 *     {@code GGML_ASSERT}s on malformed tensors inside the file are not</td><td>the refusal is a
 *     {@code BackendException} with llama.cpp's own reason; projector files are the user's own, as
 *     model files are</td><td>{@code LlamaProjectorTest.aProjectorWhoseEmbeddingIsNotTheModelsIsRefusedAtLoad}</td></tr>
 * <tr><td>{@code mtmd_helper_eval_chunk_single}</td><td>a non-causal image batch (gemma3) larger than
 *     {@code n_ubatch} asserts in {@code llama_decode}</td><td>the caller gives the context a ubatch
 *     at least as large as one image's embeddings</td><td>{@code LlamaProjectorTest}</td></tr>
 * <tr><td>{@code llama_sampler_init_logit_bias}</td><td>tokens indexed unchecked</td><td>the engine
 *     refuses tokens outside the vocabulary (400); the sampler checks again</td>
 *     <td>{@code LlamaEngineTest.aLogitBiasOutsideTheVocabulary...}</td></tr>
 * </table>
 * A model file truncated while it is served faults on the next page read when llama.cpp maps it
 * ({@link forge.api.backend.ModelLoadParams#useMmap()}, the runtime's default): the runtime's catalog
 * watches mapped files and unloads a model whose file changes in place before it decodes again
 * ({@code forge.runtime.catalog}'s package documentation says what that leaves open). State save and load
 * ({@code llama_state_seq_*}) are not called yet.
 * llama.cpp itself checks truncated files at load, invalid grammars and batches it cannot place;
 * their failures come back as {@code BackendException}s carrying the last error line llama.cpp
 * logged on the calling thread.
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
