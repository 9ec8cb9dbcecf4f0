package forge.backend.llamacpp.cuda;

import forge.api.BackendException;
import forge.api.backend.Availability;
import forge.api.backend.Backend;
import forge.api.backend.BackendContext;
import forge.api.backend.BackendProvider;
import forge.api.backend.Device;
import forge.backend.llamacpp.natives.LibrarySearch;
import forge.backend.llamacpp.natives.LlamaBackends;
import forge.backend.llamacpp.natives.LlamaNatives;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code llama.cpp-cuda} backend provider: outranks the CPU backend where it is usable. Its
 * {@link #probe} loads nothing into the process (see the package documentation); its
 * {@link #create} preloads the CUDA runtime it found and hands the CUDA natives to the shared
 * llama.cpp binding.
 */
public final class CudaProvider implements BackendProvider {

    /** The name users select this backend by. */
    public static final String NAME = "llama.cpp-cuda";
    /** Setting ({@code --cuda-natives-dir}): the folder that holds {@code libggml-cuda.so} and its siblings. */
    public static final String NATIVES = "cuda.natives";
    /** Setting ({@code --cuda-lib-dir}): folders ({@code :}-separated) to look for the CUDA runtime in first. */
    public static final String LIB_DIR = "cuda.lib.dir";
    /** The environment variable that names the natives folder, for scripts (the GPU check). */
    public static final String NATIVES_ENV = "FORGE_CUDA_NATIVES";
    /** The tarball that installs this plugin with its natives. */
    static final String TARBALL = "forge-cuda-<version>-linux-x64.tar.gz";

    public CudaProvider() {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return 10;
    }

    @Override
    public String description() {
        return "llama.cpp v0.5.0 on NVIDIA GPUs (CUDA 13, prebuilt by node-llama-cpp 3.22.1), through the shared FFM binding";
    }

    @Override
    public Availability probe(BackendContext context) {
        try {
            return check(context, System.getenv()).verdict();
        } catch (RuntimeException e) {
            return Availability.unusable("probe failed: " + e);
        }
    }

    @Override
    public Backend create(BackendContext context) {
        Check check = check(context, System.getenv());
        if (!check.verdict().isUsable()) {
            throw new BackendException(
                    NAME + " is not usable: " + check.verdict().detail());
        }
        Backend backend = LlamaBackends.create(NAME, check.natives(), context);
        // ggml skips a backend library that fails to load (it only logs why): a CUDA backend without a GPU is an error.
        if (backend.devices().stream().noneMatch(Device::isGpu)) {
            throw new BackendException(NAME + ": llama.cpp loaded no CUDA device from "
                    + check.natives().directory() + " (ggml's reason is in the log above); devices: "
                    + backend.devices());
        }
        return backend;
    }

    /** The verdict, and the natives (with what to preload) it was reached for. */
    record Check(Availability verdict, LlamaNatives natives) {}

    /** Every reason this backend cannot run here, or the devices it would run on. */
    Check check(BackendContext context, Map<String, String> env) {
        Path dir = nativesDirectory(context, env);
        List<String> problems = new ArrayList<>();
        if (!Files.isRegularFile(dir.resolve("libggml-cuda.so"))) {
            problems.add("CUDA natives not installed: no libggml-cuda.so in " + dir + " (unpack " + TARBALL
                    + " into the image's plugins/, or give --cuda-natives-dir)");
        }
        Path home = Path.of(System.getProperty("user.home", "/"));
        CudaLibraries libs = CudaLibraries.find(
                LibrarySearch.pathList(context.setting(LIB_DIR).orElse(null)),
                env,
                home,
                LibrarySearch.system(env).cache());
        Optional<Path> driver = libs.driver();
        if (driver.isEmpty()) {
            problems.add(CudaLibraries.DRIVER + " not found: no NVIDIA driver");
        }
        List<Path> preload = new ArrayList<>();
        driver.ifPresent(preload::add);
        List<String> missing = new ArrayList<>();
        libs.runtime().forEach((name, path) -> path.ifPresentOrElse(preload::add, () -> missing.add(name)));
        if (!missing.isEmpty()) {
            problems.add(String.join(", ", missing)
                    + " not found: the CUDA 13 runtime is needed (pip install nvidia-cuda-runtime"
                    + " nvidia-cublas, or a CUDA 13 toolkit), or give --cuda-lib-dir; searched --cuda-lib-dir, LD_LIBRARY_PATH,"
                    + " CUDA toolkits, the system folders, the Python nvidia-* packages and the loader's cache");
        }
        LlamaNatives natives = LlamaNatives.in(dir).withPreload(preload);
        if (!problems.isEmpty()) {
            return new Check(Availability.unusable(String.join("; ", problems)), natives);
        }
        Optional<String> problem = natives.problem(libs.search());
        if (problem.isPresent()) {
            return new Check(Availability.unusable(problem.get()), natives);
        }
        Optional<Path> code = codeLocation();
        if (code.isEmpty()) {
            return new Check(
                    Availability.unusable("cannot find this plugin's own jar to run the device probe"), natives);
        }
        DeviceProbe.Result devices = DeviceProbe.run(driver.get(), code.get(), 30);
        if (!devices.ok()) {
            return new Check(
                    Availability.unusable(
                            "no usable CUDA device: " + devices.error() + " (driver " + driver.get() + ")"),
                    natives);
        }
        StringBuilder detail = new StringBuilder(
                "CUDA driver " + devices.driverVersion() / 1000 + "." + devices.driverVersion() % 1000 / 10);
        for (DeviceProbe.Gpu g : devices.gpus()) {
            detail.append("; CUDA")
                    .append(g.index())
                    .append(' ')
                    .append(g.name())
                    .append(" (")
                    .append(g.totalBytes() >> 20)
                    .append(" MiB, ")
                    .append(g.freeBytes() >> 20)
                    .append(" MiB free)");
        }
        detail.append("; natives in ").append(dir).append("; runtime ").append(preload.subList(1, preload.size()));
        return new Check(Availability.usable(detail.toString()), natives);
    }

    /**
     * The natives folder: {@code --cuda-natives-dir}, {@code $FORGE_CUDA_NATIVES}, {@code natives/lib}
     * beside this plugin's jar, else (not run from a jar) {@code <forge home>/natives/llama-cuda/lib}.
     */
    static Path nativesDirectory(BackendContext context, Map<String, String> env) {
        Optional<Path> given = context.setting(NATIVES)
                .map(Path::of)
                .or(() -> Optional.ofNullable(env.get(NATIVES_ENV))
                        .filter(s -> !s.isBlank())
                        .map(Path::of));
        if (given.isPresent()) {
            return given.get().toAbsolutePath().normalize();
        }
        // Installed from the tarball, the plugin is a jar with natives/lib beside it: that is where they belong,
        // so a jar without them is told to look there. Run from a build's classes folder, the home's natives.
        return codeLocation()
                .filter(Files::isRegularFile)
                .map(jar -> jar.getParent().resolve("natives").resolve("lib"))
                .orElseGet(() ->
                        context.home().resolve("natives").resolve("llama-cuda").resolve("lib"))
                .toAbsolutePath()
                .normalize();
    }

    /** This module's jar (or classes folder), as its layer resolved it. */
    static Optional<Path> codeLocation() {
        Module m = CudaProvider.class.getModule();
        Optional<URI> uri = m.getLayer() == null
                ? Optional.empty()
                : m.getLayer()
                        .configuration()
                        .findModule(m.getName())
                        .flatMap(r -> r.reference().location());
        if (uri.isEmpty()) {
            try {
                uri = Optional.of(CudaProvider.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI());
            } catch (Exception e) {
                return Optional.empty();
            }
        }
        return uri.filter(u -> "file".equals(u.getScheme())).map(Path::of);
    }
}
