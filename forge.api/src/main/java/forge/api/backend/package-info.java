/**
 * The backend SPI: from a GGUF file to a loaded model, and from a model to tokens.
 *
 * <p>The runtime discovers {@link forge.api.backend.BackendProvider}s, probes each, and creates the
 * best usable one. The lifecycle is strictly nested: a {@link forge.api.backend.Backend} loads
 * {@link forge.api.backend.LoadedModel}s, a model creates {@link forge.api.backend.InferenceContext}s,
 * a context creates {@link forge.api.backend.TokenSampler}s; each is closed before its parent. A
 * context and its samplers belong to the one platform thread that drives them.
 *
 * <p>Probing leaves nothing behind (no library stays loaded: only the chosen provider's
 * {@code create} loads its natives), so every installed backend can be probed in one process.
 * GPU placement comes as {@link forge.api.backend.BackendContext} settings with llama-server's
 * meaning ({@code GPU_LAYERS}, {@code MAIN_GPU}, {@code SPLIT_MODE}, {@code TENSOR_SPLIT},
 * {@code DEVICES}); a backend reports its {@link forge.api.backend.Device}s and each model's
 * {@link forge.api.backend.Offload}, which {@code /props} shows. A backend without GPU devices
 * accepts the settings and ignores them.
 *
 * <p>LoRA adapters ({@link forge.api.backend.LoraAdapter}) are loaded for a model
 * ({@code LoadedModel.loadAdapter}) and belong to it: freed when it closes, after its contexts, so
 * never while a decode uses them. A context applies one set of them, each at its scale, to every
 * decode until told another ({@code InferenceContext.adapters}).
 *
 * <p>A context's closed choices are enums that carry their command-line spelling
 * ({@link forge.api.backend.KvCacheType}, {@link forge.api.backend.FlashAttention}: {@code wire()} and
 * {@code parse(String)}), so the runtime, the CLI and each backend share one list of them.
 *
 * {@snippet :
 * try (LoadedModel model = backend.load(ModelLoadParams.of(path), LoadProgress.NONE);
 *      InferenceContext ctx = model.newContext(ContextParams.of(2048, 4, 2));
 *      TokenSampler sampler = ctx.sampler(SamplingParams.GREEDY)) {
 *     int[] prompt = model.vocabulary().tokenize("Hello", true, true);
 *     TokenBatch batch = ctx.batch();
 *     for (int i = 0; i < prompt.length; i++) {
 *         batch.add(prompt[i], i, 0, i == prompt.length - 1);
 *     }
 *     ctx.decode();
 *     int next = sampler.sample(batch.size() - 1);
 * }
 * }
 */
package forge.api.backend;
