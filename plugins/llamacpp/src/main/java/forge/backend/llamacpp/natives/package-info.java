/**
 * What a llama.cpp backend plugin hands the one FFM binding: a natives folder, the libraries to
 * load before it, and a probe that decides without loading anything. Exported (unqualified: the
 * CUDA plugin lives in a child layer, which a qualified export cannot name) so that
 * {@code forge.backend.llamacpp.cuda} needs no copy of the binding.
 *
 * <h2>Probe and load: the lifecycle</h2>
 * <ol>
 * <li><b>Probe</b> (every provider, at every start and in {@code forge plugins}): only files are read.
 *     {@link forge.backend.llamacpp.natives.LlamaNatives#problem} checks that the libraries are
 *     there, are x86-64 ELF ({@link forge.backend.llamacpp.natives.ElfFile}), and that each of
 *     their {@code DT_NEEDED} libraries is found: in the folder itself ({@code RUNPATH $ORIGIN}),
 *     among the libraries to preload, or where the dynamic loader would look
 *     ({@link forge.backend.llamacpp.natives.LibrarySearch}: {@code LD_LIBRARY_PATH}, the default
 *     folders, {@code ldconfig -p}). No {@code dlopen}, no {@code llama_backend_init}, no handle
 *     bound: a probe leaves the process as it found it, so every candidate can be probed.</li>
 * <li><b>Load</b> (the chosen provider's {@code create} only):
 *     {@link forge.backend.llamacpp.natives.LlamaBackends#create} loads the preloads by absolute
 *     path, then {@code libggml-base}, libggml and libllama into {@code Arena.global()}, binds the
 *     handles, checks the version and struct layouts, loads the compute backends of the same
 *     folder ({@code ggml_backend_load} of the best CPU variant, or
 *     {@code ggml_backend_load_all_from_path} when the folder holds a GPU backend too) and calls
 *     {@code llama_backend_init}. From then on the native state (the libraries, ggml's backend and
 *     device registry, a CUDA context) lives in the process until it exits: a loaded llama.cpp
 *     cannot be unloaded safely, and a process holds one.</li>
 * </ol>
 *
 * <h2>Library search order</h2>
 * For a {@code DT_NEEDED} name: the natives folder, then the preloaded libraries (matched by file
 * name, as the loader matches sonames of loaded objects), then the caller's folders (the CUDA
 * plugin puts its own first), {@code LD_LIBRARY_PATH}, the default folders
 * ({@code /lib/x86_64-linux-gnu}, {@code /usr/lib/x86_64-linux-gnu}, {@code /lib64}, {@code /usr/lib64},
 * {@code /lib}, {@code /usr/lib}), last the loader's cache.
 *
 * {@snippet :
 * LlamaNatives natives = LlamaNatives.in(cudaNatives).withPreload(List.of(libcudart, libcublasLt, libcublas));
 * Optional<String> why = natives.problem(LibrarySearch.system(System.getenv()));  // probe: reads files only
 * Backend backend = LlamaBackends.create("llama.cpp-cuda", natives, context);      // create: loads for good
 * }
 */
package forge.backend.llamacpp.natives;
