package forge.http.cli;

import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import forge.lib.gguf.synth.SynthSpec;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With {@code --no-mmap}, a model file truncated in place while it is served (what
 * {@code cp new.gguf served.gguf} does first) or removed: the weights are the server's own memory,
 * not a mapping of the file, so the next request is answered as before, by the same load. (Mapped,
 * the default, the model is unloaded and reloaded instead: {@link MappedModelFileTest}.)
 */
class ModelFileChangedTest {

    private static final String CHAT = """
            {"max_tokens": 4, "messages": [{"role": "user", "content": "hello"}]}""";

    @Test
    void aModelFileTruncatedOrRemovedWhileServedDoesNotCrashTheServer(@TempDir Path work) throws Exception {
        Path model = work.resolve("victim.gguf");
        Files.copy(TestServer.model("tiny-qwen", SynthSpec.tiny("qwen")), model);
        try (TestServer server = TestServer.serve(model, "-c 512 -t 1 --no-mmap")) {
            Http http = server.http();
            ok(http.post("/v1/chat/completions", CHAT));
            assertFalse(MappedModelFileTest.mapped(model), "read into memory, not mapped");
            try (FileChannel f = FileChannel.open(model, StandardOpenOption.WRITE)) {
                f.truncate(4096);
            }
            ok(http.post("/v1/chat/completions", CHAT.replace("hello", "a different prompt, so it is computed")));
            Files.delete(model);
            ok(http.post("/v1/chat/completions", CHAT.replace("hello", "and one more")));
            assertEquals(200, http.get("/health").statusCode());
            assertEquals(
                    1, server.running().catalog().find("victim").orElseThrow().loads(), "never reloaded");
        }
    }
}
