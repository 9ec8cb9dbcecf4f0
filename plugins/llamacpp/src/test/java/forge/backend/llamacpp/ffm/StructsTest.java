package forge.backend.llamacpp.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.backend.llamacpp.LlamaHome;
import java.io.IOException;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compiles a C program against the real {@code llama.h} of the cached source, which prints
 * {@code sizeof} and {@code offsetof} of every struct and field that {@link Structs} lays out, and
 * compares each with the Java layouts. A field added or moved upstream fails the build here.
 */
class StructsTest {
    /** "struct" or "struct.field" → {offset, size} as the C compiler sees them. */
    private static final Map<String, long[]> C = new HashMap<>();

    @BeforeAll
    static void compileAndRun(@TempDir Path dir) throws IOException, InterruptedException {
        StringBuilder c = new StringBuilder("""
                #include <stddef.h>
                #include <stdio.h>
                #include "llama.h"
                #include "mtmd.h"
                #define STRUCT(s) printf("%s %zu %zu\\n", #s, (size_t) 0, sizeof(struct s));
                #define FIELD(s, f) printf("%s.%s %zu %zu\\n", #s, #f, offsetof(struct s, f), sizeof(((struct s *) 0)->f));
                int main(void) {
                """);
        for (StructLayout s : Structs.ALL) {
            String name = s.name().orElseThrow();
            c.append("    STRUCT(").append(name).append(")\n");
            for (MemoryLayout m : s.memberLayouts()) {
                if (m.name().isPresent()) {
                    c.append("    FIELD(")
                            .append(name)
                            .append(", ")
                            .append(m.name().get())
                            .append(")\n");
                }
            }
        }
        c.append("    return 0;\n}\n");
        Path source = dir.resolve("layouts.c");
        Files.writeString(source, c);
        Path exe = dir.resolve("layouts");
        Path src = LlamaHome.src();
        run(List.of(
                "cc",
                "-std=c11",
                "-Wall",
                "-I",
                src.resolve("include").toString(),
                "-I",
                src.resolve("ggml/include").toString(),
                "-I",
                src.resolve("tools/mtmd").toString(),
                source.toString(),
                "-o",
                exe.toString()));
        for (String line : run(List.of(exe.toString())).split("\n")) {
            String[] f = line.trim().split(" ");
            C.put(f[0], new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
        }
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "timed out: " + command);
        assertEquals(0, p.exitValue(), () -> String.join(" ", command) + " failed:\n" + out);
        return out;
    }

    @Test
    void everyStructHasTheSizeTheHeaderGives() {
        List<String> mismatches = new ArrayList<>();
        for (StructLayout s : Structs.ALL) {
            String name = s.name().orElseThrow();
            long cSize = C.get(name)[1];
            if (cSize != s.byteSize()) {
                mismatches.add(name + ": C " + cSize + " bytes, Java " + s.byteSize());
            }
        }
        assertEquals(List.of(), mismatches);
    }

    @Test
    void everyFieldHasTheOffsetAndSizeTheHeaderGives() {
        List<String> mismatches = new ArrayList<>();
        int fields = 0;
        for (StructLayout s : Structs.ALL) {
            String name = s.name().orElseThrow();
            long offset = 0;
            for (MemoryLayout m : s.memberLayouts()) {
                if (m.name().isPresent()) {
                    long[] c = C.get(name + "." + m.name().get());
                    fields++;
                    if (c[0] != offset || c[1] != m.byteSize()) {
                        mismatches.add(name + "." + m.name().get() + ": C offset " + c[0] + " size " + c[1]
                                + ", Java offset " + offset + " size " + m.byteSize());
                    }
                } else {
                    assertTrue(m instanceof PaddingLayout, name + ": unnamed member that is not padding: " + m);
                }
                offset += m.byteSize();
            }
        }
        assertEquals(List.of(), mismatches);
        assertEquals(C.size() - Structs.ALL.size(), fields, "every field the C program printed was compared");
    }

    @Test
    void theSizesTheDesignDocumentQuotes() {
        assertEquals(80, Structs.llama_model_params.byteSize());
        assertEquals(160, Structs.llama_context_params.byteSize());
        assertEquals(56, Structs.llama_batch.byteSize());
        assertEquals(1, Structs.llama_sampler_chain_params.byteSize());
        assertEquals(528, Structs.ggml_threadpool_params.byteSize());
        assertEquals(96, Structs.mtmd_context_params.byteSize());
        assertEquals(24, Structs.mtmd_input_text.byteSize());
        assertFalse(C.isEmpty());
    }
}
