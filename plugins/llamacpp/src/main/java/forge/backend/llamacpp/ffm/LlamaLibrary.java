package forge.backend.llamacpp.ffm;

import forge.backend.llamacpp.natives.LlamaNatives;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The llama.cpp shared libraries, loaded once per process by absolute path.
 *
 * <p>Dependency order matters for the lookup, not for the loader ({@code RUNPATH} is
 * {@code $ORIGIN}, so {@code dlopen} finds the siblings either way): {@code libggml-base.so},
 * libggml, libllama (named as {@link LlamaNatives} found them). After loading, the compute backends are
 * loaded from the same folder ({@code ggml_backend_load_all_from_path}: without it there is no CPU
 * backend), llama.cpp's log is routed to SLF4J, and {@code llama_backend_init} runs.
 *
 * <p>The libraries live in {@link Arena#global()}: a process cannot unload them safely (ggml keeps
 * global state and threads), and the log callback stub registered with them must live as long as
 * they do. Everything a server unloads (models, contexts, samplers) has its own arena.
 *
 * <p>A second {@link #load} with the same folder returns the loaded library; with another folder
 * it fails, since a process holds one llama.cpp. That is why a backend's probe never calls it:
 * only the chosen backend loads its natives.
 */
@SuppressWarnings("restricted") // native access is this module's purpose; it is granted with --enable-native-access
public final class LlamaLibrary {

    private static final Logger LOG = LoggerFactory.getLogger(LlamaLibrary.class);

    /** The llama.cpp version these bindings and {@link Structs} were written against. */
    public static final String EXPECTED_VERSION_PREFIX = "0.5.";

    private static volatile SymbolLookup lookup;
    private static LlamaLibrary loaded;
    /** How many downcall handles the load itself made (binding is lazy: the rest wait for their first call). */
    private static int handlesAtLoad;
    /** Where {@link Llama}'s handles were bound: they cannot be re-bound to another folder. */
    private static Path bound;

    private final Path directory;
    private final String version;
    private final String systemInfo;
    private final String cpuBackend;
    private final boolean openMp;

    private LlamaLibrary(Path directory, String version, String systemInfo, String cpuBackend, boolean openMp) {
        this.directory = directory;
        this.version = version;
        this.systemInfo = systemInfo;
        this.cpuBackend = cpuBackend;
        this.openMp = openMp;
    }

    /** {@link #load(LlamaNatives)} of the natives in {@code directory}, nothing preloaded. */
    public static LlamaLibrary load(Path directory) {
        return load(LlamaNatives.in(directory));
    }

    /**
     * Loads the natives (once per process) and initialises llama.cpp: the {@link LlamaNatives#preload()
     * preloaded} libraries first, by absolute path, so that when {@code ggml_backend_load} opens a
     * compute backend (which {@code dlopen}s it {@code RTLD_LOCAL}) the loader finds its
     * {@code DT_NEEDED} libraries among those already loaded (glibc matches a needed name against
     * every loaded object's soname before it searches any folder); then {@code libggml-base},
     * {@code libggml}, {@code libllama}; then the compute backends of the same folder.
     *
     * @throws LlamaLoadException when a library is missing, will not load, lacks a symbol, or is
     *                            another llama.cpp version
     */
    public static synchronized LlamaLibrary load(LlamaNatives natives) {
        Path dir = natives.directory();
        if (loaded != null && loaded.directory.equals(dir)) {
            return loaded;
        }
        for (String name : natives.libraries()) {
            Path lib = dir.resolve(name);
            if (!Files.isRegularFile(lib)) {
                throw new LlamaLoadException("libllama not found at " + dir + ": missing " + name
                        + " (run plugins/llamacpp/natives.sh, or set llama.home)");
            }
        }
        if (bound != null && !bound.equals(dir)) {
            throw new LlamaLoadException("llama.cpp is already loaded from " + bound
                    + "; one process holds one llama.cpp, so it cannot also load " + dir);
        }
        for (Path lib : natives.preload()) {
            try {
                SymbolLookup.libraryLookup(lib, Arena.global());
            } catch (IllegalArgumentException e) {
                throw new LlamaLoadException("cannot load " + lib + ": " + e.getMessage(), e);
            }
        }
        SymbolLookup combined = null;
        for (String name : natives.libraries()) {
            Path lib = dir.resolve(name);
            SymbolLookup one;
            try {
                one = SymbolLookup.libraryLookup(lib, Arena.global());
            } catch (IllegalArgumentException e) {
                throw new LlamaLoadException("cannot load " + lib + ": " + e.getMessage(), e);
            }
            // libllama first: it is the one most symbols come from.
            combined = combined == null ? one : one.or(combined);
        }
        lookup = combined;
        bound = dir;
        List<String> missing = Llama.missingSymbols(combined);
        if (!missing.isEmpty()) {
            throw new LlamaLoadException(
                    "the llama.cpp libraries in " + dir + " do not match these bindings: unresolved symbol"
                            + (missing.size() == 1 ? ": " : "s: ") + String.join(", ", missing));
        }
        String version = cString(Llama.llama_version());
        if (!version.startsWith(EXPECTED_VERSION_PREFIX)) {
            throw new LlamaLoadException("llama.cpp in " + dir + " is version " + version
                    + ", but ForgeLM's bindings are for " + EXPECTED_VERSION_PREFIX + "x (v0.5.0)");
        }
        checkLayouts(dir);
        LlamaLog.install();
        String cpuBackend;
        boolean openMp = false;
        try (Arena scratch = Arena.ofConfined()) {
            // The CPU package: load just the variant that suits this CPU (remembered after the
            // first start); any other package: let ggml load every backend it finds.
            var cpu = CpuVariants.best(dir);
            if (cpu.isEmpty()
                    || Llama.ggml_backend_load(scratch.allocateFrom(cpu.get().toString()))
                            .equals(MemorySegment.NULL)) {
                Llama.ggml_backend_load_all_from_path(scratch.allocateFrom(dir.toString()));
                cpuBackend = "the best of " + dir + " (ggml's choice)";
            } else if (CpuVariants.isOpenMp(cpu.get())) {
                openMp = true;
                cpuBackend = cpu.get() + " (threads: OpenMP, " + OpenMp.WAIT_POLICY + "="
                        + OpenMp.getenv(OpenMp.WAIT_POLICY).orElse("libgomp's default") + ", " + OpenMp.SPIN_COUNT
                        + "=" + OpenMp.getenv(OpenMp.SPIN_COUNT).orElse("libgomp's default") + ")";
            } else {
                cpuBackend = cpu.get() + " (threads: ggml's thread pool)";
            }
        }
        LOG.info("CPU backend: {}", cpuBackend);
        Llama.llama_backend_init();
        String systemInfo = cString(Llama.llama_print_system_info()).strip();
        handlesAtLoad = Llama.bound();
        loaded = new LlamaLibrary(dir, version, systemInfo, cpuBackend, openMp);
        return loaded;
    }

    /**
     * A sanity check of {@link Structs} against the binary itself: the default params must read
     * back as llama.cpp v0.5.0 sets them ({@code llama_model_default_params},
     * {@code llama_context_default_params} in {@code src/llama-model.cpp}, {@code src/llama-context.cpp}).
     * A shifted field reads garbage here instead of passing garbage to llama.cpp later.
     */
    private static void checkLayouts(Path dir) {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment m = Llama.llama_model_default_params(scratch);
            MemorySegment c = Llama.llama_context_default_params(scratch);
            boolean ok = Structs.getInt(m, Structs.llama_model_params, "n_gpu_layers") == -1
                    && Structs.getInt(m, Structs.llama_model_params, "load_mode") == -1 // LLAMA_LOAD_MODE_AUTO
                    && Structs.getBoolean(m, Structs.llama_model_params, "use_extra_bufts")
                    && !Structs.getBoolean(m, Structs.llama_model_params, "vocab_only")
                    && Structs.getInt(c, Structs.llama_context_params, "n_ctx") == 512
                    && Structs.getInt(c, Structs.llama_context_params, "n_batch") == 2048
                    && Structs.getInt(c, Structs.llama_context_params, "n_ubatch") == 512
                    && Structs.getInt(c, Structs.llama_context_params, "n_seq_max") == 1
                    && Structs.getInt(c, Structs.llama_context_params, "type_k") == 1 // GGML_TYPE_F16
                    && Structs.getInt(c, Structs.llama_context_params, "type_v") == 1
                    && Structs.getBoolean(c, Structs.llama_context_params, "offload_kqv")
                    && !Structs.getBoolean(c, Structs.llama_context_params, "kv_unified");
            if (!ok) {
                throw new LlamaLoadException("the llama.cpp libraries in " + dir
                        + " do not lay out llama_model_params / llama_context_params as these bindings do");
            }
        }
    }

    /** How many downcall handles {@link #load} made; 0 before it ran. */
    static int handlesAtLoad() {
        return handlesAtLoad;
    }

    /** The lookup over the loaded libraries; only {@link Llama} uses it, after {@link #load}. */
    static SymbolLookup lookup() {
        return Objects.requireNonNull(lookup, "llama.cpp libraries are not loaded");
    }

    /** The folder the libraries were loaded from. */
    public Path directory() {
        return directory;
    }

    /** {@code llama_version()}, such as {@code 0.5.0-dev}. */
    public String version() {
        return version;
    }

    /** {@code llama_print_system_info()} at load: the CPU features the chosen backend uses. */
    public String systemInfo() {
        return systemInfo;
    }

    /**
     * The CPU backend loaded and how its threads wait for each other: the variant's path, then
     * OpenMP with its wait policy (see {@link CpuVariants}) or ggml's own thread pool.
     */
    public String cpuBackend() {
        return cpuBackend;
    }

    /**
     * Whether the CPU backend is an OpenMP build: its threads are then libgomp's team of the thread
     * that decodes (made at its first decode, kept while that thread lives), not a pool per context.
     */
    public boolean openMp() {
        return openMp;
    }

    /** A NUL-terminated C string as Java text; the empty string for NULL. */
    public static String cString(MemorySegment s) {
        if (s.equals(MemorySegment.NULL)) {
            return "";
        }
        return s.reinterpret(Long.MAX_VALUE).getString(0);
    }
}
