package forge.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An OCI image tarball taken apart as a container runtime would: the layout's index and image
 * config read, and umoci's runtime bundle (root file system and {@code config.json}) unpacked, so
 * a test can run the bundle's process under bubblewrap ({@link #bwrap}). Podman and crun cannot
 * start a container on these machines (their rlimit and cgroup set-up is refused).
 *
 * @param layout the unpacked OCI layout (index.json, blobs/)
 * @param bundle umoci's runtime bundle
 * @param config the image's config blob (its {@code config} holds user, entrypoint, env, labels)
 * @param ref the image's reference in the layout, name:tag
 */
record OciBundle(Path layout, Path bundle, JsonNode config, String ref) {

    static final ObjectMapper JSON = new ObjectMapper();

    /** Unpacks {@code tarball}, whose index names the image {@code ref}, under {@code work}. */
    static OciBundle unpack(Path tarball, String ref, Path work) throws Exception {
        Path umoci = HostTools.require("umoci", "umoci");
        assertTrue(Files.isRegularFile(tarball), "no OCI image at " + tarball + ": run mvn package first");
        Path layout = Files.createDirectories(work.resolve("layout"));
        run(List.of("tar", "-xf", tarball.toString(), "-C", layout.toString()), 60, work);
        JsonNode index = JSON.readTree(layout.resolve("index.json").toFile());
        JsonNode descriptor = index.get("manifests").get(0);
        assertEquals(
                ref,
                descriptor
                        .path("annotations")
                        .path("org.opencontainers.image.ref.name")
                        .asText(),
                "the image's reference in " + tarball);
        JsonNode manifest = blob(layout, descriptor.get("digest").asText());
        JsonNode config = blob(layout, manifest.get("config").get("digest").asText());
        Path bundle = work.resolve("bundle");
        run(List.of(umoci.toString(), "unpack", "--image", layout + ":" + ref, bundle.toString()), 120, work);
        return new OciBundle(layout, bundle, config, ref);
    }

    static JsonNode blob(Path layout, String digest) throws IOException {
        return JSON.readTree(layout.resolve("blobs/sha256")
                .resolve(digest.substring("sha256:".length()))
                .toFile());
    }

    Path rootfs() {
        return bundle.resolve("rootfs");
    }

    /** umoci's runtime config: the process (user, args, env, cwd) a runtime would start. */
    JsonNode process() throws IOException {
        return JSON.readTree(bundle.resolve("config.json").toFile()).get("process");
    }

    /**
     * The bubblewrap command that runs a process of this bundle as a runtime would: its own user,
     * IPC and UTS namespaces, the image's user, a read-only root, {@code /tmp} a tmpfs, the image's
     * environment, then {@code env} ("NAME=value", what a Deployment adds) and {@code mounts}
     * (bwrap's own bind options); the caller appends {@code --} and the process's arguments.
     */
    List<String> bwrap(List<String> mounts, List<String> env) throws IOException {
        Path bwrap = HostTools.require("bwrap", "bubblewrap");
        JsonNode process = process();
        List<String> cmd = new ArrayList<>(List.of(
                bwrap.toString(),
                "--unshare-user",
                "--unshare-ipc",
                "--unshare-uts",
                "--unshare-cgroup-try",
                "--uid",
                process.get("user").get("uid").asText(),
                "--gid",
                process.get("user").get("gid").asText(),
                "--ro-bind",
                rootfs().toString(),
                "/",
                "--proc",
                "/proc",
                "--dev",
                "/dev",
                "--tmpfs",
                "/tmp"));
        cmd.addAll(mounts);
        cmd.addAll(List.of("--chdir", process.get("cwd").asText(), "--die-with-parent", "--clearenv"));
        List<String> all = new ArrayList<>();
        process.get("env").forEach(e -> all.add(e.asText()));
        all.addAll(env);
        for (String e : all) {
            String[] kv = e.split("=", 2);
            cmd.addAll(List.of("--setenv", kv[0], kv[1]));
        }
        return cmd;
    }

    /** Runs {@code cmd} to its end within {@code seconds}, which must succeed; its output. */
    static String run(List<String> cmd, int seconds, Path work) throws Exception {
        Path log = Files.createTempFile(work, "cmd", ".log");
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(cmd + " did not finish in " + seconds + " s:\n" + Files.readString(log));
        }
        assertEquals(0, p.exitValue(), cmd + ":\n" + Files.readString(log));
        return Files.readString(log);
    }
}
