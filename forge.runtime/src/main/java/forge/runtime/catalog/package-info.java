/**
 * The model catalog: which GGUF files the server answers for, by canonical id and alias; which
 * chat template each gets; loading on demand and unloading by policy.
 *
 * <h2>Sources</h2>
 * The user's models are read in place, never copied ({@link forge.runtime.catalog.ModelSource}):
 * <ul>
 * <li>{@code -m FILE}: the file stem is the id ({@code Qwen2.5-7B-Q4_K_M});</li>
 * <li>{@code --models-dir DIR} folders (default {@code ~/.forge/models}): every {@code .gguf} below,
 *     id = the file stem;</li>
 * <li>Ollama's store ({@code $OLLAMA_MODELS} or {@code ~/.ollama/models}): each manifest
 *     {@code manifests/<registry>/<ns>/<model>/<tag>} names its layers by digest; the
 *     {@code application/vnd.ollama.image.model} layer is the GGUF in {@code blobs/sha256-<hex>}.
 *     Id {@code model:tag} for the default registry and {@code library} namespace
 *     ({@code qwen2.5-coder:7b}), {@code ns/model:tag} for another namespace,
 *     {@code registry/ns/model:tag} for another registry (as {@code ollama list} names them);</li>
 * <li>LM Studio's ({@code ~/.lmstudio/models/<publisher>/<repo>/*.gguf}, and the older
 *     {@code ~/.cache/lm-studio/models}): id {@code publisher/repo/file-stem};</li>
 * <li>the Hugging Face hub cache ({@code $HF_HUB_CACHE}, else {@code $HF_HOME/hub}, else
 *     {@code ~/.cache/huggingface/hub}): {@code models--org--repo/snapshots/<rev>/...gguf},
 *     symlinks into {@code blobs/}; the revision {@code refs/main} names wins, else the newest;
 *     id {@code org/repo/file-stem}.</li>
 * </ul>
 * {@code ~} is {@code $HOME} of the environment ({@link forge.api.UserHome}), never Java's
 * {@code user.home}. Each source but {@code -m} can be switched off. Split files
 * ({@code name-00001-of-00003.gguf}) are one model under the id of {@code name}, loaded from the
 * first part (llama.cpp finds the others beside it); a missing part makes the model unavailable.
 * Multimodal projectors ({@code mmproj} in the name, or architecture {@code clip}) are not models.
 * Aliases come from {@code --alias} and from {@code ~/.forge/models.json}
 * ({@link forge.runtime.catalog.CatalogFile}); every alias is also an id in {@code /v1/models}.
 * When two sources give the same id, the first registered keeps it (flags, folders, Ollama,
 * LM Studio, HF) and the other is logged and skipped.
 *
 * <h2>Registration and availability</h2>
 * Registration reads only the GGUF header (pure Java, milliseconds): a file that is not GGUF, is
 * truncated (its tensors reach past its end), has an architecture the backend cannot load, or
 * whose own chat template does not parse is still listed, as unavailable with the reason
 * ({@code available: false, reason}); a request for it is refused with a 4xx naming the reason,
 * and the others serve. An id never resolves to anything but a registered file: a request names
 * models, never paths.
 *
 * <h2>Lifecycle of a model</h2>
 * <pre>
 *   unavailable (registration found it unusable; final)
 *   unloaded --request/load--> loading --ok--> loaded --ttl/lru/unload--> unloaded
 *                                  \--error--> failed (remembered until the file's size or mtime changes)
 * </pre>
 * {@link forge.runtime.catalog.ModelState} holds the state with its progress or reason.
 *
 * <h2>Load thread</h2>
 * Loads run on one platform thread of the catalog ({@code forge-model-loader}): weights are read
 * by native code that must not pin a request's virtual thread, and loading one model at a time
 * keeps the memory decisions sequential. Concurrent requests for a model being loaded wait for
 * that one load, each at most {@code loadWait} (then 503 {@code model_loading} with the progress);
 * the number waiting and the progress are in the log and in {@code GET /models}.
 *
 * <h2>Unload policy</h2>
 * Pure logic in {@link forge.runtime.catalog.UnloadPolicy}: a model idle past its keep-alive
 * ({@code --models-ttl}, or the last request's {@code keep_alive}: Ollama's semantics, a duration
 * or seconds, 0 = unload once the request ends, negative = keep) unloads; before a load, the least
 * recently used idle models unload until {@code --models-max} and {@code --models-memory} (default
 * 3/4 of the machine's RAM; a model costs its file size plus its KV cache once known) hold. A model
 * in use never unloads: it is marked, and unloads when its last user is done.
 *
 * <h2>Locking</h2>
 * Each {@link forge.runtime.catalog.ModelEntry} guards its state and lease count with its own
 * monitor; the catalog's monitor guards policy decisions (which to unload), taken only on the
 * loader thread or the reaper, and never held across a load or an engine close. A request takes a
 * {@link forge.runtime.catalog.ModelCatalog.Lease} (through {@link forge.runtime.catalog.ModelCatalog#serve},
 * attached to the request's {@link forge.runtime.catalog.ModelCatalog.RequestScope}); the engine is
 * closed only when the lease count is zero.
 *
 * {@snippet :
 * ModelCatalog catalog = new ModelCatalog(backend, selector, EngineConfig.defaults(), "");
 * catalog.add(Path.of("qwen2.5-0.5b-instruct-q8_0.gguf"), List.of("qwen"));
 * try (ModelCatalog.RequestScope scope = catalog.requestScope()) {
 *     ServedModel qwen = catalog.serve(catalog.find("qwen").orElseThrow());
 *     ChatGeneration g = qwen.chat(chatPrompt, options);
 * } // the lease ends: the model may unload from now on
 * }
 */
package forge.runtime.catalog;
