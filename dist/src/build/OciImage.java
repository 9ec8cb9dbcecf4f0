import com.google.cloud.tools.jib.api.Containerizer;
import com.google.cloud.tools.jib.api.Jib;
import com.google.cloud.tools.jib.api.JibContainerBuilder;
import com.google.cloud.tools.jib.api.TarImage;
import com.google.cloud.tools.jib.api.buildplan.AbsoluteUnixPath;
import com.google.cloud.tools.jib.api.buildplan.FileEntriesLayer;
import com.google.cloud.tools.jib.api.buildplan.FilePermissions;
import com.google.cloud.tools.jib.api.buildplan.ImageFormat;
import com.google.cloud.tools.jib.api.buildplan.Port;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Writes ForgeLM's OCI image as an OCI image layout tarball, with Jib Core: no Docker daemon, no
 * registry, no base image to pull.
 *
 * <p>Layers, from the least to the most often changed: the root file system that rootfs.sh
 * assembled from Debian packages (C and C++ runtimes, /bin/sh, passwd, the entrypoint script); the
 * jlink image without its natives ({@code /opt/forge}); llama.cpp's libraries
 * ({@code /opt/forge/natives}); and, for the CUDA image, the CUDA plugin with its natives
 * ({@code /opt/forge/plugins/llamacpp-cuda}). Permissions are the files' own; everything is owned
 * by root except the folders the server writes ({@code /var/cache/forge}, {@code /home/forge}),
 * owned by the image's user. File times and the creation time are fixed (Jib's default, the epoch
 * plus one second), so the same inputs give the same digests. Jib writes no symbolic links: a link
 * to a file of the same tree is written as a copy of that file, any other link fails the build.
 *
 * <p>Usage: {@code java -cp JIB_CORE_CLASSPATH OciImage.java --rootfs DIR --forge DIR --out TAR
 * --name REF [--cuda-plugin DIR] [--label KEY=VALUE]...}; run by build-image-oci.sh.
 */
public class OciImage {

    /** The image's user: not root, and not a name a host might map to something else. */
    static final String USER = "10001:10001";

    public static void main(String[] args) throws Exception {
        Path rootfs = null;
        Path forge = null;
        Path out = null;
        Path cudaPlugin = null;
        String name = null;
        Map<String, String> labels = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--rootfs" -> rootfs = Path.of(value);
                case "--forge" -> forge = Path.of(value);
                case "--out" -> out = Path.of(value);
                case "--name" -> name = value;
                case "--cuda-plugin" -> cudaPlugin = Path.of(value);
                case "--label" -> {
                    int eq = value.indexOf('=');
                    labels.put(value.substring(0, eq), value.substring(eq + 1));
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
            i++;
        }
        if (rootfs == null || forge == null || out == null || name == null) {
            throw new IllegalArgumentException("usage: OciImage --rootfs DIR --forge DIR --out TAR --name REF [--cuda-plugin DIR] [--label K=V]...");
        }

        Path natives = forge.resolve("natives");
        JibContainerBuilder image = Jib.fromScratch()
                .setFormat(ImageFormat.OCI)
                .addFileEntriesLayer(layer("rootfs", rootfs, AbsoluteUnixPath.get("/"), Set.of()))
                .addFileEntriesLayer(layer("forge", forge, AbsoluteUnixPath.get("/opt/forge"), Set.of(natives)))
                .addFileEntriesLayer(layer("llama.cpp", natives, AbsoluteUnixPath.get("/opt/forge/natives"), Set.of()));
        if (cudaPlugin != null) {
            image.addFileEntriesLayer(layer("llama.cpp-cuda", cudaPlugin,
                    AbsoluteUnixPath.get("/opt/forge/plugins/" + cudaPlugin.getFileName()), Set.of()));
        }
        image.setUser(USER)
                .setWorkingDirectory(AbsoluteUnixPath.get("/home/forge"))
                .setEntrypoint("/usr/local/bin/forge-serve")
                .setProgramArguments(List.of())
                .setEnvironment(environment())
                .addExposedPort(Port.tcp(8080))
                .addVolume(AbsoluteUnixPath.get("/models"))
                .addVolume(AbsoluteUnixPath.get("/var/cache/forge"))
                .setLabels(labels);
        Files.deleteIfExists(out);
        Path cache = Files.createTempDirectory("forge-oci");
        try {
            image.containerize(Containerizer.to(TarImage.at(out).named(name))
                    .setApplicationLayersCache(cache.resolve("app"))
                    .setBaseImageLayersCache(cache.resolve("base"))
                    .setOfflineMode(true)
                    .setToolName("forge-dist"));
        } finally {
            try (Stream<Path> files = Files.walk(cache)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        System.out.println("OciImage: " + out + " (" + Files.size(out) / (1024 * 1024) + " MiB), " + name);
    }

    /** What the image's processes see: the entrypoint's defaults (see forge-serve) and the JVM's options. */
    static Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", "/opt/forge/bin:/usr/local/bin:/usr/bin:/bin");
        env.put("HOME", "/home/forge");
        env.put("FORGE_HOST", "0.0.0.0");
        env.put("FORGE_PORT", "8080");
        env.put("FORGE_MODELS_DIR", "/models");
        env.put("FORGE_PROMPT_CACHE_DIR", "/var/cache/forge");
        // No hsperfdata file in /tmp: the root file system is read-only and nothing reads it.
        env.put("JAVA_OPTS", "-XX:-UsePerfData");
        return env;
    }

    /** One layer of the tree under {@code from}, at {@code to}, leaving out {@code skip} (folders). */
    static FileEntriesLayer layer(String name, Path from, AbsoluteUnixPath to, Set<Path> skip) throws IOException {
        FileEntriesLayer.Builder layer = FileEntriesLayer.builder().setName(name);
        Instant time = FileEntriesLayer.DEFAULT_MODIFICATION_TIME;
        List<Path> paths = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(from)) {
            walk.filter(p -> skip.stream().noneMatch(p::startsWith)).sorted().forEach(paths::add);
        }
        for (Path p : paths) {
            String relative = from.relativize(p).toString();
            AbsoluteUnixPath target = relative.isEmpty() ? to : to.resolve(relative);
            if (target.toString().equals("/")) {
                continue; // the root has no entry of its own (Jib makes every parent folder)
            }
            Path source = p;
            if (Files.isSymbolicLink(p)) {
                // Jib writes files and folders, not links: a link to a file inside the tree (the jlink
                // image's legal/ links each module's notices to java.base's) becomes a copy of it.
                source = p.toRealPath();
                if (!source.startsWith(from.toRealPath()) || !Files.isRegularFile(source)) {
                    throw new IllegalStateException("a symbolic link to something other than a file of the image's input: " + p + " -> " + source);
                }
            }
            String owner = isWritable(target) ? USER : "0:0";
            FilePermissions mode = FilePermissions.fromPosixFilePermissions(Files.getPosixFilePermissions(source, LinkOption.NOFOLLOW_LINKS));
            layer.addEntry(source, target, mode, time, owner);
        }
        return layer.build();
    }

    /** The folders the server writes, owned by its user. */
    static boolean isWritable(AbsoluteUnixPath path) {
        String p = path.toString();
        return p.equals("/var/cache/forge") || p.equals("/home/forge");
    }
}
