package forge.http.cli;

import forge.api.UserHome;
import forge.runtime.RuntimeConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/** Options every command shares: where plugins are, which backend to use. */
final class CommonOptions {

    @Option(
            names = "--plugins-dir",
            paramLabel = "DIR",
            description = "An extra plugins folder (repeatable). "
                    + "Also searched: the image's plugins/ and ~/.forge/plugins.")
    List<Path> pluginDirs = new ArrayList<>();

    @Option(names = "--backend", paramLabel = "NAME", description = "Use this backend instead of the best usable one.")
    String backend = "";

    @Option(
            names = "--cuda-lib-dir",
            paramLabel = "DIR",
            description =
                    "A folder with the CUDA 13 runtime (libcudart.so.13, "
                            + "libcublas.so.13), searched before LD_LIBRARY_PATH, CUDA toolkits, the system and Python's nvidia-* packages (repeatable).")
    List<Path> cudaLibDirs = new ArrayList<>();

    @Option(
            names = "--cuda-natives-dir",
            paramLabel = "DIR",
            description = "The CUDA backend's llama.cpp libraries "
                    + "(default: natives/lib beside its plugin jar; or $FORGE_CUDA_NATIVES).")
    Path cudaNatives;

    /**
     * {@code ~/.forge} ({@code ~} being {@code $HOME}, not Java's {@code user.home}: see
     * {@link forge.api.UserHome}), or {@code forge.user.home} when set (tests keep away from the real one).
     */
    static Path userHome() {
        String configured = System.getProperty("forge.user.home");
        return configured != null && !configured.isBlank()
                ? Path.of(configured)
                : UserHome.get().resolve(".forge");
    }

    RuntimeConfig runtimeConfig() {
        Path home = RuntimeConfig.defaultHome();
        List<Path> folders = new ArrayList<>();
        folders.add(home.resolve("plugins"));
        folders.addAll(pluginDirs);
        folders.add(userHome().resolve("plugins"));
        Map<String, String> flags = new LinkedHashMap<>();
        if (!cudaLibDirs.isEmpty()) {
            flags.put(
                    "cuda.lib.dir",
                    String.join(
                            ":",
                            cudaLibDirs.stream()
                                    .map(p -> p.toAbsolutePath().toString())
                                    .toList()));
        }
        if (cudaNatives != null) {
            flags.put("cuda.natives", cudaNatives.toAbsolutePath().toString());
        }
        return new RuntimeConfig(home, folders, backend, RuntimeConfig.settingsFromSystemProperties())
                .withSettings(flags);
    }
}
