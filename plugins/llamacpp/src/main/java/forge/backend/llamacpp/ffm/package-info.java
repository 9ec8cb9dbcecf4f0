/**
 * The FFM binding to llama.cpp v0.5.0: boring on purpose.
 *
 * <ul>
 * <li>{@link forge.backend.llamacpp.ffm.LlamaLibrary} loads a natives folder
 *     ({@code forge.backend.llamacpp.natives.LlamaNatives}: the CPU package's, the CUDA package's or
 *     a build from source) by absolute path, once per process, into {@code Arena.global()}: first
 *     the libraries to preload (the CUDA runtime), then {@code libggml-base.so}, libggml and
 *     libllama; checks {@code llama_version()}; loads the compute backends of the folder; routes
 *     the log to SLF4J; calls {@code llama_backend_init()}. Only a chosen backend's
 *     {@code create} calls it: probes read files (see {@code forge.backend.llamacpp.natives}).</li>
 * <li>{@link forge.backend.llamacpp.ffm.Llama} has one method handle and one static method per C
 *     function, named exactly like it. Each handle is made on the function's first call (its own
 *     holder class), so a start binds only what it calls; the load still looks every symbol up,
 *     and a missing one fails it with "unresolved symbol: NAME". {@code Llama.bind} makes named
 *     handles ahead of their first call: the backend has those of a first request made on a
 *     thread of its own while the process's first model loads.</li>
 * <li>{@link forge.backend.llamacpp.ffm.Structs} lays out the C structs the binding touches; a test
 *     compiles a C program against the real header and compares every size and offset.</li>
 * <li>{@code CpuVariants} picks the CPU variant to load (remembered per CPU), preferring on a tie
 *     the OpenMP build {@code plugins/llamacpp/ggml-omp.sh} makes of this CPU's variant; before it
 *     opens that build, {@code OpenMp} puts a bounded spin ({@code GOMP_SPINCOUNT}) into the C
 *     environment (unless the user set a wait policy or spin count), which libgomp reads once when it
 *     loads. The choice and
 *     its threading are logged once and kept as {@link forge.backend.llamacpp.ffm.LlamaLibrary#cpuBackend()}.</li>
 * <li>{@link forge.backend.llamacpp.ffm.LlamaLog} is the log upcall: it never throws, gathers
 *     pieces into lines per thread, and remembers each thread's last error line.</li>
 * </ul>
 *
 * <p>Nothing here owns memory beyond the libraries and the log stub; the product classes in
 * {@code forge.backend.llamacpp} own their arenas (see that package's documentation).
 *
 * {@snippet :
 * LlamaLibrary lib = LlamaLibrary.load(Path.of("/opt/llama/lib"));   // once per process
 * String info = LlamaLibrary.cString(Llama.llama_print_system_info());
 * }
 */
package forge.backend.llamacpp.ffm;
