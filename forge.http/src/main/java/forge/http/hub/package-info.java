/**
 * Pulling GGUF models from a Hugging Face repository into the hub cache, as {@code llama-server
 * -hf} and {@code ollama pull hf.co/...} do, where every other tool finds them too.
 *
 * <h2>Design</h2>
 * <ul>
 * <li>What to fetch: {@code org/repo/path/file.gguf} names a file; {@code org/repo[:QUANT]} asks the
 *     hub for the repository's files ({@code GET /api/models/org/repo/revision/main}) and takes
 *     the GGUFs whose name carries the quant tag ({@code Q4_K_M} when none is given), every part
 *     of a split model, never a projector as a model. The projector that goes with the model
 *     (llama-server's {@code --mmproj-auto}: an {@code mmproj} GGUF in the model's folder or one
 *     above it, the deepest, then the quant closest in bits to the model's) is pulled too, unless
 *     {@code --no-mmproj} (or {@code "mmproj": false} in a pull request's body) says not to, by the
 *     model's commit into the same snapshot, where the catalog finds it beside the model as its
 *     projector and never lists it as a model. (Ollama's projector layer needs no pull here:
 *     {@code ollama pull} fetches it, and the catalog reads it from Ollama's store.)</li>
 * <li>Each file: {@code HEAD /org/repo/resolve/<rev>/<file>} (redirects not followed) gives the
 *     commit ({@code x-repo-commit}), the LFS sha256 ({@code x-linked-etag}) and the size
 *     ({@code x-linked-size}); the bytes come from where {@code GET} redirects (a blob host, sent
 *     no token), into {@code blobs/<sha256>.incomplete}, resumed with {@code Range} after a cut
 *     (three tries per pull, and across pulls); the whole file is hashed and must equal the LFS
 *     id before it is renamed to {@code blobs/<sha256>}; only then does
 *     {@code snapshots/<commit>/<file>} link to it and {@code refs/<rev>} name the commit. The
 *     catalog reads snapshots only, so nothing partial is ever served as a model.</li>
 * <li>{@code HF_TOKEN} goes to the hub only, as {@code Authorization: Bearer}; a 401 or 403 says
 *     to set it. {@code --hf-endpoint} / {@code HF_ENDPOINT} points at a mirror.</li>
 * <li>Progress is reported as Ollama's {@code /api/pull} lines ({@link forge.http.hub.HubPull.Progress}):
 *     the CLI draws a bar on a terminal and prints lines elsewhere; {@code POST /models/pull}
 *     streams them as NDJSON.</li>
 * </ul>
 *
 * {@snippet :
 * HubPull pull = new HubPull(URI.create(HubPull.DEFAULT_ENDPOINT), System.getenv("HF_TOKEN"), hubCache);
 * HubPull.Result r = pull.pull(HubPull.Target.parse("Qwen/Qwen2.5-0.5B-Instruct-GGUF:Q8_0"), System.out::println);
 * }
 */
package forge.http.hub;
