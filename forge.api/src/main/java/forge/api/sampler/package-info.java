/**
 * Sampling: what a request's parameters turn into before a backend builds its native sampler
 * chain ({@link forge.api.sampler.SamplingParams}), and the SPI through which a plugin adds
 * stages of its own to that chain ({@link forge.api.sampler.SamplerProvider}).
 *
 * <h2>The chain and its order</h2>
 * A request's chain is a list of {@link forge.api.sampler.SamplerStep steps}, in llama-server's
 * {@code samplers} order: the built-in stages ({@link forge.api.sampler.BuiltinStage}: penalties,
 * dry, top_n_sigma, top_k, typ_p, top_p, min_p, xtc, temperature, mirostat, llama.cpp's own
 * samplers) and the stages plugins contribute ({@link forge.api.sampler.PluginStage}). Without a
 * {@code samplers} parameter the order is llama-server's default and no plugin stage runs: a plugin
 * stage runs only for the requests that name it.
 *
 * <h2>Writing a sampler stage</h2>
 * A {@link forge.api.sampler.SamplerProvider} is found by {@link java.util.ServiceLoader}; it
 * describes its stages ({@link forge.api.sampler.StageInfo}: a name, a description and typed
 * {@link forge.api.sampler.StageParameter parameters}) and creates them. Each parameter is a
 * field of the request body named {@code <stage>_<what>} ({@code loop_guard_n}), as llama-server
 * names DRY's and XTC's ({@code dry_multiplier}, {@code xtc_threshold}).
 *
 * {@snippet :
 * public final class ShoutProvider implements SamplerProvider {
 *     public List<StageInfo> stages() {
 *         return List.of(new StageInfo("shout", "favours tokens that are upper case",
 *                 List.of(StageParameter.number("shout_bonus", 1.0, 0, 10, "added to their logits"))));
 *     }
 *     public SamplerStage create(String stage, StageArguments args) {
 *         double bonus = args.number("shout_bonus");
 *         return candidates -> { ... candidates.logit(i, candidates.logit(i) + (float) bonus) ... };
 *     }
 * }
 * }
 *
 * <h2>Lifecycle (the design)</h2>
 * <ol>
 * <li><b>Discovery.</b> The runtime calls {@link forge.api.sampler.SamplerProvider#stages()} once
 *     and {@link forge.api.sampler.SamplerProvider#create create} once per stage with its
 *     parameters' defaults, as a smoke test: a provider whose methods throw, a name that is not
 *     {@code [a-z][a-z0-9_]*}, a parameter not named {@code <stage>_...}, or a built-in's name is
 *     reported failed and dropped ({@code forge plugins} shows why). Two plugins with the same
 *     stage name: the higher module version wins, on a tie the first found (the boot layer, then
 *     the plugins folders in their order, each folder's entries by name); the loser is dropped
 *     with a warning, never shadowed silently.</li>
 * <li><b>Admission.</b> On the HTTP thread, before the request is queued: every name of
 *     {@code samplers} must be a built-in or a discovered stage, every parameter of a named stage
 *     is read from the body and checked against its type and range, then {@code create} is called
 *     once with them and the stage thrown away, so that a combination the plugin refuses (it throws
 *     {@link java.lang.IllegalArgumentException}) is a 400 naming the stage before any slot is
 *     taken. What comes out is a {@link forge.api.sampler.PluginStage}: the provider and its
 *     checked {@link forge.api.sampler.StageArguments}.</li>
 * <li><b>Per sequence.</b> When a sequence starts (each choice of {@code n} is one), the backend
 *     calls {@code create} again on the engine's thread: every sequence has its own
 *     {@link forge.api.sampler.SamplerStage}, so a stage keeps its history in plain fields. A stage
 *     is confined to that thread: {@link forge.api.sampler.SamplerStage#apply apply},
 *     {@link forge.api.sampler.SamplerStage#accept accept} and
 *     {@link forge.api.sampler.SamplerStage#reset reset} are called from it alone, between
 *     decodes, and the stage is dropped when its sequence ends.</li>
 * <li><b>Failure.</b> A stage that throws, or writes a logit that is NaN or {@code +Infinity},
 *     fails its own request with a {@link forge.api.SamplerStageException} naming it (a 500: the
 *     request was valid, the plugin failed); the engine, the model and the other requests go on.
 *     A stage that bans every token fails its request as a grammar that allows nothing does
 *     ({@link forge.api.SamplingException}).</li>
 * <li><b>Cost.</b> The llama.cpp backend runs a plugin stage inside its native chain as a custom
 *     {@code llama_sampler_i} whose functions are upcalls into Java that never throw. A request
 *     that names no plugin stage makes no upcall at all: it samples exactly as fast as before.</li>
 * </ol>
 *
 * <h2>Packaging and installing</h2>
 * See {@link forge.api} (the module's documentation): a sampler plugin is a modular jar that
 * {@code requires forge.api} and declares
 * {@code provides forge.api.sampler.SamplerProvider with ...;}.
 */
package forge.api.sampler;
