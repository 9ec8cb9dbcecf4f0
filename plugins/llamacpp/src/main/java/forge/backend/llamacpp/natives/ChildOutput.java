package forge.backend.llamacpp.natives;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What a short child process wrote: how a probe asks about native code without loading it into
 * this process ({@code ldconfig -p} for {@link LibrarySearch}, the CUDA plugin's driver probe).
 *
 * @param output   its output, its errors merged in, up to the bytes asked for
 * @param finished whether it ended in the time given; if not, it was killed
 */
public record ChildOutput(String output, boolean finished) {

    /**
     * Runs {@code command} with empty input, reads at most {@code maxBytes} of what it writes, and
     * waits up to {@code timeoutSeconds} for it to end, killing it if it does not.
     */
    public static ChildOutput run(List<String> command, int maxBytes, long timeoutSeconds)
            throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        String out;
        try (InputStream in = p.getInputStream()) {
            out = new String(in.readNBytes(maxBytes), StandardCharsets.UTF_8);
        }
        boolean finished = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly();
        }
        return new ChildOutput(out, finished);
    }
}
