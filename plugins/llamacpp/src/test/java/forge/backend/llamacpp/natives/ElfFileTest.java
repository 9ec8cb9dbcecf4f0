package forge.backend.llamacpp.natives;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.backend.llamacpp.LlamaHome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

public class ElfFileTest {

    @Test
    void readsWhatTheLoaderReadsOfLibllama() throws IOException {
        // readelf -d libllama.v0.5.0.so: NEEDED libggml.v0.5.0.so, libggml-base.so, libstdc++..., SONAME, RUNPATH
        // $ORIGIN
        ElfFile elf = ElfFile.read(LlamaHome.lib().resolve("libllama.v0.5.0.so"));
        assertEquals(ElfFile.EM_X86_64, elf.machine());
        assertEquals(Optional.of("libllama.v0.5.0.so"), elf.soname());
        assertTrue(elf.needed().contains("libggml.v0.5.0.so"), elf.needed().toString());
        assertTrue(elf.needed().contains("libggml-base.so"), elf.needed().toString());
        assertTrue(elf.needed().contains("libc.so.6"), elf.needed().toString());
        assertEquals(java.util.List.of("$ORIGIN"), elf.runpath());
    }

    @Test
    void aFileThatIsNotElfOrIsCutShortIsRefusedWithTheReason(@TempDir Path dir) throws IOException {
        Path text =
                Files.writeString(dir.resolve("libx.so"), "INPUT(-lfoo)\n"); // a linker script, as some libfoo.so are
        assertTrue(assertThrows(IOException.class, () -> ElfFile.read(text))
                .getMessage()
                .contains("ELF header"));
        Files.write(text, new byte[64]);
        assertTrue(assertThrows(IOException.class, () -> ElfFile.read(text))
                .getMessage()
                .contains("not an ELF file"));
        byte[] real = Files.readAllBytes(LlamaHome.lib().resolve("libggml-base.so"));
        Path cut = dir.resolve("libcut.so");
        Files.write(cut, java.util.Arrays.copyOf(real, 4096));
        assertTrue(assertThrows(IOException.class, () -> ElfFile.read(cut))
                .getMessage()
                .contains("outside the file"));
    }

    @Test
    void aRenamedNeededLibraryReadsBackRenamed(@TempDir Path dir) throws IOException {
        Path copy = dir.resolve("libggml-base.so");
        Files.copy(LlamaHome.lib().resolve("libggml-base.so"), copy);
        renameNeeded(copy, "libstdc++.so.6", "libstdc++.so.X");
        assertTrue(ElfFile.read(copy).needed().contains("libstdc++.so.X"));
    }

    /** Rewrites the first {@code from} in {@code file} (its dynamic string table, which comes early) to {@code to}, of the same length. */
    public static void renameNeeded(Path file, String from, String to) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        byte[] f = (from + "\0").getBytes(StandardCharsets.US_ASCII);
        byte[] t = (to + "\0").getBytes(StandardCharsets.US_ASCII);
        assertEquals(f.length, t.length);
        for (int i = 0; i + f.length <= bytes.length; i++) {
            if (java.util.Arrays.equals(bytes, i, i + f.length, f, 0, f.length) && bytes[i - 1] == 0) {
                System.arraycopy(t, 0, bytes, i, t.length);
                Files.write(file, bytes);
                return;
            }
        }
        throw new AssertionError(from + " not in " + file);
    }
}
