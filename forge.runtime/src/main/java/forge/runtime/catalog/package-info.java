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
 * Multimodal projectors ({@code mmproj} in the name, or architecture {@code clip}) are not models: each is
 * found with the model it serves ({@code ModelSource.Found.projector}: the first {@code mmproj*.gguf} in
 * the model's folder, LM Studio repo or HF snapshot; the blob of Ollama's projector layer).
 * Nor are LoRA adapters ({@code general.type = adapter}): {@link forge.runtime.catalog.AdapterFile}s
 * belong to a model. {@code --lora} / {@code --lora-scaled} give them to the model of {@code -m}
 * (applied at 1 or the scale given to requests that name no {@code lora}); a source that finds one
 * in the folder of a model it fits (a models folder, a Hugging Face snapshot) attaches it to the
 * first such model, applied to no request until asked (scale 0). Whether an adapter fits is read
 * from both headers ({@code forge.lib.gguf.LoraFiles}: architecture and every tensor's shape),
 * so an adapter of another base model is refused (at start, with the reason) or left out (in a
 * store, logged) before anything is loaded. Each adapter is also a model id of its own (the base
 * with it at scale 1): {@code find} resolves it to its model's entry. The scales a request that
 * names no {@code lora} applies belong to the entry ({@code POST /lora-adapters} sets them), so
 * they outlive an unload. The native adapters are loaded with the model ({@code ServedModel.adapters})
 * and freed with it, after its engine's context is closed.
 * Aliases come from {@code --alias} and from {@code ~/.forge/models.json}
 * (read by the server's {@code forge.http.cli.ModelsFile}); every alias is also an id in {@code /v1/models}.
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
 * <h2>Parts</h2>
 * <ul>
 * <li>{@link forge.runtime.catalog.CatalogConfig}: every setting (engine settings, context
 *     policy, templates, {@code --mmap}, the prompt cache, the lifecycle limits, the backend
 *     choices), collected by its builder and fixed at {@code build()}. Nothing is configured
 *     after construction, so no setting's effect depends on whether a model was registered or
 *     loaded before it was given.</li>
 * <li>{@link forge.runtime.catalog.ModelRegistry}: the entries, by id and alias, from the
 *     sources; reads GGUF headers only.</li>
 * <li>{@link forge.runtime.catalog.ModelLoader}: the loader thread, the reaper, the leases and
 *     the unload policy over the registry's entries.</li>
 * <li>{@link forge.runtime.catalog.ModelCatalog}: the three together, as the server uses them,
 *     and the per-request {@link forge.runtime.catalog.ModelCatalog.RequestScope}.</li>
 * </ul>
 *
 * <h2>Lifecycle of a model</h2>
 * <pre>
 *   unavailable (registration found it unusable; final)
 *   unloaded --request/load--> loading --ok--> loaded --ttl/lru/unload--> unloaded
 *                                  \--error--> failed (remembered until the file's size or mtime changes)
 *   loaded --mapped file changed in place--> reloading --file quiet--> loading (below)
 * </pre>
 * {@link forge.runtime.catalog.ModelState} holds the state with its progress or reason; each
 * {@link forge.runtime.catalog.ModelEntry} holds its state, its lease count ({@code users}), the
 * requests waiting for its load ({@code waiting}), when it was last used, the last request's
 * keep-alive and whether an unload was asked while it was in use.
 *
 * <h2>Loader thread</h2>
 * Loads and unloads run on one platform thread of the loader ({@code forge-model-loader}):
 * weights are read by native code that must not pin a request's virtual thread, and one at a
 * time keeps the memory decisions sequential. A load is queued by the first request (or
 * {@code load}) that finds the model unloaded, which sets it {@code loading} with a future;
 * concurrent requests for it wait on that one future, each at most {@code loadWait} (then 503
 * {@code model_loading} with the progress); the number waiting and the progress are in the log and
 * in {@code GET /models}. On the thread, before reading the weights, the least recently used idle
 * models unload until the limits hold for the new one; a load that fails leaves the model
 * {@code failed}, and it is tried again only once its file's size or mtime changed.
 *
 * <h2>Mapped weights and their files changing</h2>
 * Weights are mapped from their files by default (llama.cpp's {@code mmap}; {@code --no-mmap} reads
 * them into memory, and then nothing below applies): a load costs no copy of the file and processes
 * serving one file share its pages. A mapping reads whatever the file holds now, and a page past
 * the file's end faults with SIGBUS, which ends the JVM. What can change a served file:
 * <ul>
 * <li><b>replaced by rename</b> (how Ollama, the Hugging Face hub and LM Studio write: a new file,
 *     renamed over the old, or a new blob a link now names): the path names another file
 *     ({@link forge.runtime.catalog.FileIdentity.Change#REPLACED}); the mapped file lives on, unlinked,
 *     until it is unmapped, so the model goes on serving it, and its next load reads the new file;</li>
 * <li><b>removed</b>: the same ({@code GONE}); the next load fails with the reason;</li>
 * <li><b>changed in place</b> ({@code cp new.gguf served.gguf} truncates then writes, a download
 *     resumed in place, {@code dd}): the same file (device and inode) with another size or time
 *     ({@code IN_PLACE}). The model is unloaded before its pages are read again and reloaded from
 *     the new bytes once they stop changing.</li>
 * </ul>
 * {@code ModelFileWatch} watches the files of every model loaded mapped: the
 * folders' inotify events (and a poll every second, for file systems inotify does not see) make it
 * compare each file's {@link forge.runtime.catalog.FileIdentity} with the one taken just before the
 * load read it (so a change during the load is caught when the watch starts). Nothing is checked
 * per token or per decode. A change in place drives the model through:
 * <pre>
 *   loaded --file changed in place--> reloading (503 model_loading with Retry-After; engine closed:
 *      |                                 no decode after the one running, its requests end with an error;
 *      |                                 weights freed, i.e. unmapped, when no request holds the model)
 *      |                              --file unchanged for 2 s--> loading --ok--> loaded
 *      |                                                                  \--error--> failed (the reason; 400)
 *      \--file replaced or removed--> loaded (the old mapping serves until the model unloads)
 * </pre>
 * In the loader this is one section and the calls into it: a mapped load registers its files with
 * the watch, an unload forgets them, the watch calls {@code fileChangedInPlace} and then
 * {@code fileSettled}.
 * <p><b>What stays unprotected.</b> A write that lands while a decode reads the same pages: the
 * engine is only stopped between decodes, so a decode running when a file is truncated faults on
 * the first page past the new end (SIGBUS: the process ends), and one running while bytes are
 * rewritten computes from a mix of old and new weights (a wrong token, no crash). The same holds for
 * the instant between the write and the watch's reaction (the inotify event, a {@code stat}: well
 * under a decode step), and, on a file system without inotify events for the write (a network
 * mount written by another host), for up to the poll's second. A model idle when its file changes
 * is safe. Only {@code --no-mmap} removes the risk, at the price of a copy of every file in memory.
 *
 * <h2>Leases</h2>
 * A user of a loaded model holds a {@link forge.runtime.catalog.ModelLoader.Lease}: taking one
 * counts a user of the entry, closing it (once; a second close does nothing) uncounts it. A
 * request takes its leases through {@link forge.runtime.catalog.ModelCatalog#serve}, which
 * attaches them to the request's {@link forge.runtime.catalog.ModelCatalog.RequestScope} (a
 * thread-local, nested scopes restore the outer one); closing the scope closes them, with the
 * request's own {@code keep_alive}. Outside any scope (start-up, tests) {@code serve} closes the
 * lease at once: the model is loaded, not held. An engine is closed only when its entry counts no
 * user and no waiter.
 *
 * <h2>Reaper</h2>
 * A platform thread ({@code forge-model-reaper}) looks every 200 ms for idle models past their
 * keep-alive; it decides nothing itself: each unload it finds is queued on the loader thread,
 * which checks again that the model is still expired and idle (a request may have taken it).
 *
 * <h2>Unload</h2>
 * Pure logic in {@link forge.runtime.catalog.UnloadPolicy}: a model idle past its keep-alive
 * ({@code --models-ttl}, or the last request's {@code keep_alive}: Ollama's semantics, a duration
 * or seconds, 0 = unload once the request ends, negative = keep) unloads; before a load, the least
 * recently used idle models unload until {@code --models-max} and {@code --models-memory} (default
 * 3/4 of the machine's RAM; a model costs its file size plus its KV cache once known) hold. A model
 * in use never unloads: {@link forge.runtime.catalog.ModelLoader#unload} marks it, and it unloads
 * when its last user is done (a model still loading unloads when its load ends, unless a request
 * waits for it). Every path (keep-alive 0 at a lease's close, the mark, the reaper, the limits,
 * {@code unload}) ends in the loader's one private unload step on the loader thread, which
 * unloads only an entry that is loaded with no user and no waiter, and closes its engine outside
 * the entry's monitor.
 *
 * <h2>Locking</h2>
 * Each {@link forge.runtime.catalog.ModelEntry} guards its state, lease count and waiters with its
 * own monitor, never held across a load or an engine close. Policy decisions (which to unload) are
 * taken only on the loader thread (the reaper's candidates are checked again there), so they are
 * sequential without a lock of their own. {@link forge.runtime.catalog.ModelLoader#close} stops
 * the reaper, lets a running load end, closes every engine, then the prompt cache's store.
 *
 * {@snippet :
 * ModelCatalog catalog = new ModelCatalog(CatalogConfig.builder(backend, selector).build());
 * catalog.add(Path.of("qwen2.5-0.5b-instruct-q8_0.gguf"), List.of("qwen"));
 * try (ModelCatalog.RequestScope scope = catalog.requestScope()) {
 *     ServedModel qwen = catalog.serve(catalog.find("qwen").orElseThrow());
 *     ChatGeneration g = qwen.chat(chatPrompt, options);
 * } // the lease ends: the model may unload from now on
 * }
 */
package forge.runtime.catalog;
