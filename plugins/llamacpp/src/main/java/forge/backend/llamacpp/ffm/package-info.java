/**
 * The FFM binding to llama.cpp v0.5.0: boring on purpose.
 *
 * <ul>
 * <li>{@link forge.backend.llamacpp.ffm.LlamaLibrary} loads {@code libggml-base.so},
 *     {@code libggml.v0.5.0.so} and {@code libllama.v0.5.0.so} by absolute path, once per process,
 *     into {@code Arena.global()}; checks {@code llama_version()}; loads the CPU backend variants
 *     ({@code ggml_backend_load_all_from_path}); routes the log to SLF4J; calls
 *     {@code llama_backend_init()}.</li>
 * <li>{@link forge.backend.llamacpp.ffm.Llama} has one method handle and one static method per C
 *     function, named exactly like it; a missing symbol fails the load with
 *     "unresolved symbol: NAME".</li>
 * <li>{@link forge.backend.llamacpp.ffm.Structs} lays out the C structs the binding touches; a test
 *     compiles a C program against the real header and compares every size and offset.</li>
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
