package forge.backend.llamacpp;

import forge.api.BackendException;
import forge.backend.llamacpp.ffm.Llama;
import forge.backend.llamacpp.ffm.SharedObjects;
import forge.backend.llamacpp.ffm.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CPU threads a context computes with, made once and kept, as llama.cpp's {@code common}
 * does for llama-server ({@code common_threadpools::init}) and llama-bench does per test.
 *
 * <p>Without an attached pool, ggml's CPU backend makes a disposable one for every graph it
 * computes: {@code n_threads - 1} threads started and joined on every {@code llama_decode}, that
 * is on every generated token, and cold caches for each. A kept pool's threads poll briefly for the
 * next graph (ggml's default polling level, 50) and then sleep.
 *
 * <p>Lifecycle: the pools belong to the context's arena and are made before the context, so the
 * arena frees them after {@code llama_free} (an arena runs its cleanups newest first); nothing
 * computes on a pool after its context is gone. With different decode and prefill thread counts
 * there are two pools, the decode one created paused (ggml wakes it when it is first used), as in
 * {@code common}. When the CPU backend does not offer {@code ggml_threadpool_new} (another backend
 * build), the context runs with ggml's per-graph pools as before.
 *
 * <p>With the OpenMP build of the CPU variant ({@code plugins/llamacpp/ggml-omp.sh}, preferred
 * where it was built) a pool holds no threads: ggml computes in an OpenMP parallel region, on
 * libgomp's team of the thread that calls {@code llama_decode} (the engine's own thread), made at
 * its first decode and kept until that thread ends, whose waiting threads sleep after a bounded
 * spin ({@code GOMP_SPINCOUNT}, see {@code forge.backend.llamacpp.ffm.OpenMp}); {@link #pause}
 * is then a no-op in ggml.
 */
@SuppressWarnings("restricted") // native access is this module's purpose; it is granted with --enable-native-access
final class LlamaThreadpools {
    private static final Logger LOG = LoggerFactory.getLogger(LlamaThreadpools.class);
    /** {@code GGML_BACKEND_DEVICE_TYPE_CPU} of {@code enum ggml_backend_dev_type}. */
    private static final int GGML_BACKEND_DEVICE_TYPE_CPU = 0;

    /** The decode pool and the prefill pool (NULL when the decode pool serves both). */
    final MemorySegment decode;

    final MemorySegment batch;
    private final MemorySegment pauseFn;

    private LlamaThreadpools(MemorySegment decode, MemorySegment batch, MemorySegment pauseFn) {
        this.decode = decode;
        this.batch = batch;
        this.pauseFn = pauseFn;
    }

    /**
     * Stops the workers polling for the next graph: after a decode they spin for a while
     * ({@code 1024 * 128 * poll} CPU pause instructions; at the default level, 50, more than 300 ms
     * on the 2-core test machine) before they sleep, which is right between the tokens of a
     * generation and wasted, taken from every other process, once the engine has nothing to do. ggml resumes a paused pool
     * when it is next given a graph.
     */
    void pause() {
        if (pauseFn.equals(MemorySegment.NULL)) {
            return;
        }
        Llama.ggml_threadpool_pause(pauseFn, decode);
        if (!batch.equals(MemorySegment.NULL)) {
            Llama.ggml_threadpool_pause(pauseFn, batch);
        }
    }

    /** The pools for {@code threads} / {@code threadsBatch}, freed with {@code arena}; null when ggml offers none. */
    static LlamaThreadpools create(Arena arena, int threads, int threadsBatch) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment device = Llama.ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
            if (device.equals(MemorySegment.NULL)) {
                return null;
            }
            MemorySegment reg = Llama.ggml_backend_dev_backend_reg(device);
            MemorySegment newFn =
                    Llama.ggml_backend_reg_get_proc_address(reg, call.allocateFrom("ggml_threadpool_new"));
            MemorySegment freeFn =
                    Llama.ggml_backend_reg_get_proc_address(reg, call.allocateFrom("ggml_threadpool_free"));
            // Not handed out by the CPU backend's registry in this release, but exported beside new/free.
            MemorySegment pauseFn =
                    SharedObjects.symbolBeside(newFn, "ggml_threadpool_pause").orElse(MemorySegment.NULL);
            if (newFn.equals(MemorySegment.NULL) || freeFn.equals(MemorySegment.NULL)) {
                LOG.debug("the CPU backend offers no ggml_threadpool_new; ggml makes a pool per graph");
                return null;
            }
            MemorySegment batchPool = MemorySegment.NULL;
            boolean separate = threadsBatch != threads;
            if (separate) {
                batchPool = make(arena, call, newFn, freeFn, threadsBatch, false);
            }
            MemorySegment decodePool = make(arena, call, newFn, freeFn, threads, separate);
            return new LlamaThreadpools(decodePool, batchPool, pauseFn);
        }
    }

    private static MemorySegment make(
            Arena arena, Arena call, MemorySegment newFn, MemorySegment freeFn, int threads, boolean paused) {
        MemorySegment params = call.allocate(Structs.ggml_threadpool_params);
        Llama.ggml_threadpool_params_init(params, threads);
        Structs.setBoolean(params, Structs.ggml_threadpool_params, "paused", paused);
        MemorySegment pool = Llama.ggml_threadpool_new(newFn, params);
        if (pool.equals(MemorySegment.NULL)) {
            throw new BackendException("ggml could not start a pool of " + threads + " CPU threads");
        }
        return pool.reinterpret(arena, p -> Llama.ggml_threadpool_free(freeFn, p));
    }
}
