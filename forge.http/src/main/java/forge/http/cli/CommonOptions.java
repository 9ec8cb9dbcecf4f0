package forge.http.cli;

import forge.runtime.RuntimeConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** Options every command shares: where plugins are, which backend to use. */
final class CommonOptions {

    @Option(names = "--plugins-dir", paramLabel = "DIR", description = "An extra plugins folder (repeatable). "
            + "Also searched: the image's plugins/ and ~/.forge/plugins.")
    List<Path> pluginDirs = new ArrayList<>();

    @Option(names = "--backend", paramLabel = "NAME", description = "Use this backend instead of the best usable one.")
    String backend = "";

    /**
     * {@code ~/.forge} ({@code ~} being {@code $HOME}, not Java's {@code user.home}: see
     * {@link forge.api.UserHome}), or {@code forge.user.home} when set (tests keep away from the real one).
     */
    static Path userHome() {
        String configured = System.getProperty("forge.user.home");
        return configured != null && !configured.isBlank() ? Path.of(configured)
                : forge.api.UserHome.get().resolve(".forge");
    }

    RuntimeConfig runtimeConfig() {
        Path home = RuntimeConfig.defaultHome();
        List<Path> folders = new ArrayList<>();
        folders.add(home.resolve("plugins"));
        folders.addAll(pluginDirs);
        folders.add(userHome().resolve("plugins"));
        return new RuntimeConfig(home, folders, backend, RuntimeConfig.settingsFromSystemProperties());
    }
}
