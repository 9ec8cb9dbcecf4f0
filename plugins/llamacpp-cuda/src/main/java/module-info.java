/**
 * ForgeLM's llama.cpp CUDA backend: llama.cpp v0.5.0 on NVIDIA GPUs, through the one FFM binding of
 * {@code forge.backend.llamacpp}. This module finds things and hands them over: the CUDA natives
 * folder, the CUDA runtime libraries wherever the user has them, the driver and its devices.
 *
 * <p>It ships as a plugin of its own ({@code forge-cuda-<version>-linux-x64.tar.gz}, unpacked into
 * the image's {@code plugins/}): its natives are about 160 MB, so the base image stays CPU-only.
 *
 * @provides forge.api.backend.BackendProvider the {@code llama.cpp-cuda} backend (priority 10)
 */
module forge.backend.llamacpp.cuda {
    requires forge.api;
    requires forge.backend.llamacpp;

    provides forge.api.backend.BackendProvider with
            forge.backend.llamacpp.cuda.CudaProvider;
}
