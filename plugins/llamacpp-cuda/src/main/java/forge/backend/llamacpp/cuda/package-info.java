/**
 * The {@code llama.cpp-cuda} backend provider: what it looks for, in what order, and what it never
 * does while probing.
 *
 * <h2>Probe and load</h2>
 * {@link forge.backend.llamacpp.cuda.CudaProvider#probe} leaves nothing behind in the server's
 * process. It reads files (the natives' ELF headers, through
 * {@code forge.backend.llamacpp.natives.LlamaNatives#problem}) and asks the NVIDIA driver about its
 * devices in a <em>child</em> JVM ({@link forge.backend.llamacpp.cuda.DeviceProbe}: {@code cuInit},
 * {@code cuDeviceGetCount}, {@code cuDeviceGetName}, {@code cuMemGetInfo}), because {@code cuInit}
 * starts driver threads and maps device memory that no {@code dlclose} gives back. Only when the
 * runtime chooses this backend does {@link forge.backend.llamacpp.cuda.CudaProvider#create} load
 * anything: the CUDA runtime by absolute path, then the CUDA natives, through the shared binding
 * ({@code forge.backend.llamacpp.natives.LlamaBackends}). The native state (the libraries, ggml's
 * device registry, the CUDA context) then lives in the process until it exits, as the CPU
 * backend's does; models, contexts and samplers own their arenas as documented in
 * {@code forge.backend.llamacpp}.
 *
 * <h2>Where things are looked for, in order</h2>
 * <ol>
 * <li>The natives ({@code libggml-cuda.so}, {@code libggml.cuda.v0.5.0.so}, {@code libllama.cuda.v0.5.0.so},
 *     {@code libggml-base.so}, the CPU variants): {@code --cuda-natives-dir} (setting
 *     {@code cuda.natives}), {@code $FORGE_CUDA_NATIVES}, {@code natives/lib} beside this plugin's
 *     jar (the tarball's layout), or, run from a build's classes folder, {@code <forge home>/natives/llama-cuda/lib}. A folder built from
 *     the llama.cpp source ({@code libggml.so}, {@code libllama.so}, {@code -DGGML_BACKEND_DL=ON})
 *     is accepted too.</li>
 * <li>The driver's {@code libcuda.so.1} and the CUDA 13 runtime ({@code libcudart.so.13},
 *     {@code libcublasLt.so.13}, {@code libcublas.so.13}):
 *     {@code --cuda-lib-dir} (setting {@code cuda.lib.dir}, a {@code :}-list), {@code LD_LIBRARY_PATH},
 *     a CUDA toolkit ({@code $CUDA_HOME}, {@code $CUDA_PATH}, {@code /usr/local/cuda*}, {@code /opt/cuda}:
 *     {@code lib64} and {@code targets/x86_64-linux/lib}), the system folders
 *     ({@code /usr/lib/x86_64-linux-gnu} and the other defaults), the {@code nvidia-*} Python packages
 *     ({@code site-packages/nvidia/cuda_runtime/lib}, {@code nvidia/cublas/lib}, {@code nvidia/cu13/lib}
 *     in a virtualenv, conda, pyenv, {@code ~/.local} or the system Python), and last the loader's
 *     cache ({@code ldconfig -p}).</li>
 * </ol>
 * {@code libggml-cuda.so} finds its {@code DT_NEEDED} libraries through the dynamic loader, which
 * cannot be told about new folders once the process runs ({@code LD_LIBRARY_PATH} is read at
 * start). So the libraries found are loaded first, by absolute path: the loader then matches the
 * needed names against the sonames already loaded, wherever their files are.
 *
 * {@snippet :
 * // forge plugins, on a machine without a driver:
 * //   llama.cpp-cuda  priority 10  unusable: libcuda.so.1 not found: no NVIDIA driver ...
 * BackendProvider cuda = new CudaProvider();
 * Availability a = cuda.probe(new BackendContext(home, Map.of("cuda.lib.dir", "/opt/cuda13/lib")));
 * }
 */
package forge.backend.llamacpp.cuda;
