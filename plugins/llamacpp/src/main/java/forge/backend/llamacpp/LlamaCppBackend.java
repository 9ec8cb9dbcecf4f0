package forge.backend.llamacpp;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import forge.api.BackendException;
import forge.api.backend.Backend;
import forge.api.backend.Device;
import forge.api.backend.LoadProgress;
import forge.api.backend.LoadedModel;
import forge.api.backend.ModelLoadParams;
import forge.api.backend.ModelQuantizer;
import forge.api.backend.Offload;
import forge.api.model.ModelMetadata;
import forge.backend.llamacpp.ffm.Llama;
import forge.backend.llamacpp.ffm.LlamaLibrary;
import forge.backend.llamacpp.ffm.LlamaLog;
import forge.backend.llamacpp.ffm.Structs;
import forge.backend.llamacpp.natives.LlamaNatives;
import forge.lib.gguf.GgufReader;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The llama.cpp backend: loads models. Holds no native memory itself; the libraries are
 * process-wide ({@link LlamaLibrary}) and each model owns its own arena.
 */
@SuppressWarnings("restricted") // native access is this module's purpose; it is granted with --enable-native-access
public final class LlamaCppBackend implements Backend {
    private static final Logger LOG = LoggerFactory.getLogger(LlamaCppBackend.class);

    // enum llama_load_mode
    private static final int LLAMA_LOAD_MODE_NONE = 0;
    private static final int LLAMA_LOAD_MODE_MMAP = 1;

    /** The {@code llama_progress_callback} target: {@code bool (*)(float progress, void * user_data)}. */
    private static final MethodHandle PROGRESS;

    private static final FunctionDescriptor PROGRESS_DESCRIPTOR =
            FunctionDescriptor.of(JAVA_BOOLEAN, JAVA_FLOAT, ADDRESS);

    static {
        try {
            PROGRESS = MethodHandles.lookup()
                    .findVirtual(
                            ProgressUpcall.class,
                            "update",
                            MethodType.methodType(boolean.class, float.class, MemorySegment.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final LlamaLibrary library;
    private final String name;
    private final GpuSettings gpu;
    private volatile boolean closed;

    LlamaCppBackend(LlamaLibrary library) {
        this(library, LlamaCppProvider.NAME, GpuSettings.DEFAULTS);
    }

    /**
     * @param name the provider's name ({@code llama.cpp-cpu}, {@code llama.cpp-cuda})
     * @param gpu  the GPU flags; a backend without GPU devices accepts and ignores them, as
     *             llama-server on a CPU build does
     */
    public LlamaCppBackend(LlamaLibrary library, String name, GpuSettings gpu) {
        this.library = library;
        this.name = name;
        this.gpu = gpu;
        if (gpuDevices().isEmpty() && !gpu.given().isEmpty()) {
            LOG.info(
                    "{}: no GPU devices, so {} is accepted and ignored (as llama-server on a CPU build)",
                    name,
                    String.join(", ", gpu.given()));
        }
    }

    @Override
    public String name() {
        return name;
    }

    /** Every device the loaded ggml backends offer, with its memory now. */
    @Override
    public List<Device> devices() {
        List<Device> out = new ArrayList<>();
        long n = Llama.ggml_backend_dev_count();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment free = call.allocate(ValueLayout.JAVA_LONG);
            MemorySegment total = call.allocate(ValueLayout.JAVA_LONG);
            for (long i = 0; i < n; i++) {
                MemorySegment dev = Llama.ggml_backend_dev_get(i);
                Llama.ggml_backend_dev_memory(dev, free, total);
                String type = switch (Llama.ggml_backend_dev_type(dev)) {
                    case 0 -> "cpu";
                    case 1 -> "gpu";
                    case 2 -> "igpu";
                    case 3 -> "accel";
                    default -> "other";
                };
                out.add(new Device(
                        LlamaLibrary.cString(Llama.ggml_backend_dev_name(dev)),
                        LlamaLibrary.cString(Llama.ggml_backend_dev_description(dev)),
                        type,
                        free.get(ValueLayout.JAVA_LONG, 0),
                        total.get(ValueLayout.JAVA_LONG, 0)));
            }
        }
        return List.copyOf(out);
    }

    /** The GPU devices a model may use: those {@code --device} names, else every GPU. */
    private List<Device> gpuDevices() {
        if (gpu.noDevices()) {
            return List.of();
        }
        List<Device> gpus = devices().stream().filter(Device::isGpu).toList();
        if (gpu.devices().isEmpty()) {
            return gpus;
        }
        List<Device> chosen = new ArrayList<>();
        for (String wanted : gpu.devices()) {
            chosen.add(gpus.stream()
                    .filter(d -> d.name().equalsIgnoreCase(wanted))
                    .findFirst()
                    .orElseThrow(
                            () -> new BackendException("--device " + wanted + ": no such GPU device; the devices are "
                                    + devices().stream().map(Device::name).toList())));
        }
        return List.copyOf(chosen);
    }

    @Override
    public Optional<String> refuses(ModelMetadata metadata) {
        return Architectures.refuses(metadata.architecture());
    }

    /** The loaded libraries: their folder, version and system info. */
    public LlamaLibrary library() {
        return library;
    }

    @Override
    public LoadedModel load(ModelLoadParams params, LoadProgress progress) {
        if (closed) {
            throw new BackendException("the llama.cpp backend is closed");
        }
        Path file = GgufFiles.check(params.path());
        ProgressUpcall upcall = new ProgressUpcall(progress);
        MemorySegment model;
        Offload placement;
        // The params struct, the path string and the progress stub live for this call only.
        try (Arena call = Arena.ofConfined()) {
            MemorySegment p = Llama.llama_model_default_params(call);
            List<Device> gpus = params.vocabOnly() ? List.of() : gpuDevices();
            placement = place(file, params, gpus);
            Structs.setInt(p, Structs.llama_model_params, "n_gpu_layers", placement.offloaded());
            if (!gpus.isEmpty()) {
                setDevices(call, p, gpus);
            }
            Structs.setInt(
                    p,
                    Structs.llama_model_params,
                    "load_mode",
                    params.useMmap() ? LLAMA_LOAD_MODE_MMAP : LLAMA_LOAD_MODE_NONE);
            Structs.setBoolean(p, Structs.llama_model_params, "vocab_only", params.vocabOnly());
            MemorySegment stub = Linker.nativeLinker().upcallStub(PROGRESS.bindTo(upcall), PROGRESS_DESCRIPTOR, call);
            Structs.setAddress(p, Structs.llama_model_params, "progress_callback", stub);
            LlamaLog.takeLastError();
            long start = System.nanoTime();
            model = Llama.llama_model_load_from_file(call.allocateFrom(file.toString()), p);
            if (model.equals(MemorySegment.NULL)) {
                if (upcall.failure != null) {
                    throw new BackendException(
                            "loading " + file + " failed in its progress callback: " + upcall.failure, upcall.failure);
                }
                if (upcall.aborted) {
                    throw new BackendException("loading " + file + " was aborted by its progress callback");
                }
                String why = LlamaLog.takeLastError();
                if (placement.offloaded() > 0) {
                    // Most often the device memory ran out (cudaMalloc failed): say what was asked and how to ask less.
                    throw new BackendException("llama.cpp could not load " + file + " with " + placement.offloaded()
                            + " of "
                            + placement.layers() + " layers on " + placement.devices() + " (" + placement.reason() + ")"
                            + (why.isEmpty() ? "" : ": " + why) + "; give fewer layers with -ngl N, or -ngl auto");
                }
                throw new BackendException("llama.cpp could not load " + file + (why.isEmpty() ? "" : ": " + why));
            }
            LOG.debug("loaded {} in {} ms", file, (System.nanoTime() - start) / 1_000_000);
        }
        if (upcall.last < 1f) {
            // llama.cpp reports progress only while reading weights; a vocabulary-only load ends here.
            upcall.update(1f, MemorySegment.NULL);
        }
        if (placement.offloaded() > 0) {
            LOG.info(
                    "{}: {} of {} layers on {} ({})",
                    file.getFileName(),
                    placement.offloaded(),
                    placement.layers(),
                    placement.devices(),
                    placement.reason());
        }
        LlamaModel loaded = new LlamaModel(model, file, params.vocabOnly(), placement);
        if (params.projector().isPresent()) {
            Path mmproj = params.projector().get();
            try {
                Path libmtmd = LlamaNatives.in(library.directory())
                        .mtmd()
                        .orElseThrow(() -> new BackendException("cannot load the projector " + mmproj
                                + ": there is no libmtmd beside the llama.cpp libraries in " + library.directory()));
                // the encoder runs where the layers went: on the GPU when any did, as llama-server's default
                loaded.loadProjector(
                        mmproj, libmtmd, Runtime.getRuntime().availableProcessors(), placement.offloaded() > 0);
            } catch (RuntimeException e) {
                loaded.close();
                throw e;
            }
        }
        return loaded;
    }

    /**
     * How many layers go to the GPU devices: {@code -ngl N} as given, {@code all} every one, else
     * ({@code auto}) every layer that fits their free memory ({@link GpuLayerFit}). None without
     * GPU devices.
     */
    private Offload place(Path file, ModelLoadParams params, List<Device> gpus) {
        if (gpus.isEmpty()) {
            return new Offload(0, 0, List.of(), 0, "no GPU devices");
        }
        List<String> names = gpus.stream().map(Device::name).toList();
        if (gpu.splitMode() == GpuSettings.SPLIT_NONE) {
            if (gpu.mainGpu() >= gpus.size()) {
                throw new BackendException(
                        "--main-gpu " + gpu.mainGpu() + ": there are " + gpus.size() + " GPU devices " + names);
            }
            gpus = List.of(gpus.get(gpu.mainGpu()));
            names = List.of(gpus.getFirst().name());
        }
        List<Long> layerBytes = new ArrayList<>();
        long output = 0;
        try {
            var gguf = GgufReader.read(file);
            Map<Integer, Long> byLayer = new TreeMap<>();
            for (var t : gguf.tensors()) {
                var m = Pattern.compile("blk\\.(\\d+)\\..*").matcher(t.name());
                if (m.matches()) {
                    byLayer.merge(Integer.parseInt(m.group(1)), t.byteSize(), Long::sum);
                } else if (t.name().startsWith("output")) {
                    output += t.byteSize();
                }
            }
            layerBytes.addAll(byLayer.values());
        } catch (RuntimeException e) {
            throw new BackendException(
                    "cannot read the layers of " + file + " to place them on the GPU: " + e.getMessage(), e);
        }
        int all = layerBytes.size() + 1;
        long total = output + layerBytes.stream().mapToLong(Long::longValue).sum();
        int asked = params.gpuLayers() >= 0 ? params.gpuLayers() : gpu.layers().orElse(-1);
        if (asked >= 0) {
            int n = Math.min(asked, all);
            long bytes = n == 0
                    ? 0
                    : output
                            + layerBytes.subList(layerBytes.size() - (n - 1), layerBytes.size()).stream()
                                    .mapToLong(Long::longValue)
                                    .sum();
            return new Offload(all, n, names, bytes, "-ngl " + asked);
        }
        if (gpu.all()) {
            return new Offload(all, all, names, total, "-ngl all");
        }
        long free = gpus.stream().mapToLong(Device::freeBytes).sum();
        GpuLayerFit.Choice fit = GpuLayerFit.choose(layerBytes, output, free);
        if (fit.layers() < all) {
            LOG.warn("{}: {}", file.getFileName(), fit.reason());
        }
        return new Offload(all, fit.layers(), names, fit.bytes(), fit.reason());
    }

    /** {@code devices} (NULL-terminated), {@code split_mode}, {@code main_gpu}, {@code tensor_split} of the params. */
    private void setDevices(Arena call, MemorySegment p, List<Device> gpus) {
        MemorySegment list = call.allocate(ADDRESS, gpus.size() + 1L); // zeroed: the last one is the NULL terminator
        for (int i = 0; i < gpus.size(); i++) {
            MemorySegment dev =
                    Llama.ggml_backend_dev_by_name(call.allocateFrom(gpus.get(i).name()));
            if (dev.equals(MemorySegment.NULL)) {
                throw new BackendException("device " + gpus.get(i).name() + " went away");
            }
            list.setAtIndex(ADDRESS, i, dev);
        }
        Structs.setAddress(p, Structs.llama_model_params, "devices", list);
        Structs.setInt(p, Structs.llama_model_params, "split_mode", gpu.splitMode());
        // main_gpu indexes the devices list given, as llama.cpp's llama_model_load_from_file reads it.
        Structs.setInt(
                p,
                Structs.llama_model_params,
                "main_gpu",
                gpu.splitMode() == GpuSettings.SPLIT_NONE ? 0 : gpu.mainGpu());
        if (!gpu.tensorSplit().isEmpty()) {
            if (gpu.tensorSplit().size() > gpus.size()) {
                throw new BackendException("--tensor-split " + gpu.tensorSplit() + ": more proportions than the "
                        + gpus.size() + " GPU devices");
            }
            // llama.cpp reads llama_max_devices() floats.
            MemorySegment split = call.allocate(JAVA_FLOAT, Math.max(Llama.llama_max_devices(), gpus.size()));
            for (int i = 0; i < gpu.tensorSplit().size(); i++) {
                split.setAtIndex(JAVA_FLOAT, i, gpu.tensorSplit().get(i));
            }
            Structs.setAddress(p, Structs.llama_model_params, "tensor_split", split);
        }
    }

    @Override
    public Optional<ModelQuantizer> quantizer() {
        return Optional.of(new LlamaQuantizer());
    }

    /**
     * Marks the backend closed. The libraries stay loaded: they are process-wide and cannot be
     * unloaded safely; every model must be closed by its owner.
     */
    @Override
    public void close() {
        closed = true;
    }

    /** Forwards llama.cpp's load progress to a {@link LoadProgress}; an upcall, so it never throws. */
    static final class ProgressUpcall {
        private final LoadProgress progress;
        volatile float last = -1f;
        volatile boolean aborted;
        volatile Throwable failure;

        ProgressUpcall(LoadProgress progress) {
            this.progress = progress;
        }

        boolean update(float fraction, MemorySegment userData) {
            try {
                last = fraction;
                if (!progress.update(fraction)) {
                    aborted = true;
                    return false;
                }
                return true;
            } catch (Throwable t) {
                failure = t;
                return false;
            }
        }
    }
}
