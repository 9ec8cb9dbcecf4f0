package forge.backend.llamacpp;

import forge.api.BackendException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

/**
 * Checks made in Java before a path reaches llama.cpp, so that the common mistakes get a clear
 * message: a missing or unreadable file, or one that is not GGUF at all. A truncated GGUF is left
 * to llama.cpp, whose loader checks every tensor's extent against the file size ("tensor data is
 * not within the file bounds") before it maps anything.
 */
final class GgufFiles {
    /** {@code "GGUF"}, the first four bytes of every GGUF file. */
    private static final byte[] MAGIC = {'G', 'G', 'U', 'F'};

    private GgufFiles() {}

    /** Fails with a {@link BackendException} unless {@code path} is a readable file that starts like GGUF. */
    static Path check(Path path) {
        Path file = path.toAbsolutePath().normalize();
        if (!Files.exists(file)) {
            throw new BackendException("model file not found: " + file);
        }
        if (!Files.isRegularFile(file)) {
            throw new BackendException("not a regular file: " + file);
        }
        if (!Files.isReadable(file)) {
            throw new BackendException("model file is not readable: " + file);
        }
        byte[] head = new byte[8];
        int n;
        try (InputStream in = Files.newInputStream(file)) {
            n = in.readNBytes(head, 0, head.length);
        } catch (IOException e) {
            throw new BackendException("cannot read " + file + ": " + e.getMessage(), e);
        }
        if (n < head.length) {
            throw new BackendException("not a GGUF file (only " + n + " bytes): " + file);
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (head[i] != MAGIC[i]) {
                throw new BackendException("not a GGUF file (it starts with 0x"
                        + HexFormat.of().formatHex(head, 0, 4) + ", GGUF files start with \"GGUF\"): " + file);
            }
        }
        return file;
    }
}
