package forge.dist;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * The host programs the container and replica tests drive: Debian's umoci, bubblewrap (bwrap) and
 * HAProxy. CI installs them (.ci/run) and sets {@code FORGE_CONTAINER_TESTS=required}, so there a
 * missing one fails the test; elsewhere the test is skipped, saying which package to install.
 */
final class HostTools {

    private HostTools() {}

    /** The program's path on PATH (or in /usr/sbin, where Debian puts haproxy). */
    static Path require(String program, String debianPackage) {
        Optional<Path> found = Arrays.stream((System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin").split(":"))
                .filter(d -> !d.isEmpty())
                .map(d -> Path.of(d, program))
                .filter(Files::isExecutable)
                .findFirst();
        if (found.isPresent()) {
            return found.get();
        }
        String message = program + " is not installed (apt-get install " + debianPackage + ")";
        if ("required".equals(System.getenv("FORGE_CONTAINER_TESTS"))) {
            fail(message + "; FORGE_CONTAINER_TESTS=required");
        }
        Assumptions.abort(message);
        throw new AssertionError("unreachable");
    }

    /** A free loopback port. */
    static int freePort() throws java.io.IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
