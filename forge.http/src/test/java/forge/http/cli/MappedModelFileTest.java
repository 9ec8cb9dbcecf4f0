package forge.http.cli;

import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.lib.gguf.synth.SynthSpec;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.ModelState;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.Iterator;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Weights mapped by default, and what a served file's change does: a write in place unloads the
 * model before its pages are read again and reloads it (503 with {@code Retry-After} meanwhile, or
 * the load's reason when the new file is bad); a replacement by rename goes on serving the mapped
 * file. A page read past a truncation would be a SIGBUS that ends this test's JVM.
 */
class MappedModelFileTest {

    private static final String CHAT = """
            {"model": "%s", "max_tokens": 4, "messages": [{"role": "user", "content": "hello"}]}""";

    @TempDir
    Path work;

    private Path copy(String name) throws Exception {
        Path model = work.resolve(name + ".gguf");
        Files.copy(TestServer.model("tiny-qwen", SynthSpec.tiny("qwen")), model);
        return model;
    }

    /** Whether this process maps {@code file} (a line of /proc/self/maps names it). */
    static boolean mapped(Path file) throws Exception {
        String path = file.toRealPath().toString();
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.anyMatch(l -> l.endsWith(" " + path));
        }
    }

    private static JsonNode model(Http http, String id) throws Exception {
        for (JsonNode m : ok(http.get("/models")).get("data")) {
            if (m.get("id").asText().equals(id)) {
                return m;
            }
        }
        throw new AssertionError("no " + id);
    }

    private static JsonNode await(Http http, String id, Predicate<JsonNode> status) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            JsonNode m = model(http, id);
            if (status.test(m.get("status"))) {
                return m;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(id + " did not reach the state awaited: " + m);
            }
            Thread.sleep(20);
        }
    }

    /** Rewrites {@code file} in place, as {@code cp} does: the same inode, truncated, then written. */
    private static void overwriteInPlace(Path file, byte[] bytes) throws Exception {
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                c.write(b);
            }
        }
    }

    @Test
    void theWeightsAreMappedByDefault() throws Exception {
        Path model = copy("mapped");
        try (TestServer server = TestServer.serve(model, "-c 512 -t 1")) {
            ok(server.http().post("/v1/chat/completions", CHAT.formatted("mapped")));
            assertTrue(mapped(model), "the model file is mapped");
        }
        assertFalse(mapped(model), "unmapped once the server stopped");
    }

    @Test
    void anIdleModelChangedInPlaceIsUnloadedAnsweredWith503AndReloaded() throws Exception {
        Path model = copy("victim");
        byte[] bytes = Files.readAllBytes(model);
        // The file settles for 10 s before the reload starts: the checks below come well within that, even on a
        // busy machine.
        try (TestServer server = TestServer.serve(model, "-c 512 -t 1 --model-file-settle 10s")) {
            Http http = server.http();
            ok(http.post("/v1/chat/completions", CHAT.formatted("victim")));
            int loads = model(http, "victim").get("loads").asInt();
            overwriteInPlace(model, bytes);
            JsonNode reloading = await(http, "victim", s -> s.path("reloading").asBoolean());
            assertTrue(
                    reloading.get("status").get("reason").asText().contains("was changed in place"),
                    reloading.toString());
            ModelEntry entry = server.running().catalog().find("victim").orElseThrow();
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!(entry.state() instanceof ModelState.Reloading r && r.retiring() == null)) {
                assertTrue(System.nanoTime() < deadline, "the old model is not freed: " + entry.state());
                Thread.sleep(5);
            }
            assertFalse(mapped(model), "unmapped before anything read its pages again");
            HttpResponse<String> busy = http.post("/v1/chat/completions", CHAT.formatted("victim"));
            assertEquals(503, busy.statusCode(), busy.body());
            assertEquals("1", busy.headers().firstValue("Retry-After").orElse(""));
            assertTrue(busy.body().contains("is reloading"), busy.body());
            await(http, "victim", s -> !s.path("reloading").asBoolean(false));
            ok(http.post("/v1/chat/completions", CHAT.formatted("victim").replace("hello", "after the reload")));
            assertEquals(loads + 1, model(http, "victim").get("loads").asInt(), "reloaded once");
            assertTrue(mapped(model));
            assertEquals(200, http.get("/health").statusCode());
        }
    }

    @Test
    void aModelDecodingWhenItsFileIsWrittenStopsBeforeTheNextDecode() throws Exception {
        Path model = copy("busy");
        try (TestServer server = TestServer.serve(model, "-c 2048 -np 1 -t 1")) {
            Http http = server.http();
            int loads = model(http, "busy").get("loads").asInt();
            String longAnswer = """
                    {"model": "busy", "max_tokens": 1900, "ignore_eos": true, "stream": true,
                     "messages": [{"role": "user", "content": "go on"}]}""";
            HttpResponse<Stream<String>> stream = http.stream("/v1/chat/completions", longAnswer);
            assertEquals(200, stream.statusCode());
            Iterator<String> lines = stream.body().iterator();
            while (!lines.next().startsWith("data: {")) {
                // until the first chunk: the model is decoding now
            }
            // A write in place that changes no byte (no page faults, no other weights) but the file's time:
            // the watch cannot tell it from any other write.
            try (FileChannel c = FileChannel.open(model, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ByteBuffer head = ByteBuffer.allocate(16);
                c.read(head, 0);
                c.write(head.flip(), 0);
            }
            Files.setLastModifiedTime(
                    model, FileTime.fromMillis(Files.getLastModifiedTime(model).toMillis() + 1000));
            List<String> rest = new java.util.ArrayList<>();
            lines.forEachRemaining(rest::add);
            String tail = String.join("\n", rest);
            assertTrue(
                    tail.contains("\"error\""),
                    "the answer ends with an error, not its 1900 tokens: "
                            + tail.substring(Math.max(0, tail.length() - 400)));
            assertFalse(tail.contains("\"finish_reason\":\"length\""), "it stopped before its end");
            await(http, "busy", s -> s.get("value").asText().equals("loaded"));
            ok(http.post("/v1/chat/completions", CHAT.formatted("busy")));
            assertEquals(loads + 1, model(http, "busy").get("loads").asInt());
        }
    }

    @Test
    void aModelReplacedByRenameKeepsServingAndABadNewFileInPlaceMakesItUnavailableWithTheReason() throws Exception {
        Path kept = copy("kept");
        Path broken = copy("broken");
        try (TestServer server = TestServer.serve(kept, "-c 512 -t 1", "-m", broken.toString())) {
            Http http = server.http();
            ok(http.post("/v1/chat/completions", CHAT.formatted("kept")));
            ok(http.post("/v1/chat/completions", CHAT.formatted("broken")));
            int loads = model(http, "kept").get("loads").asInt();
            // The stores' way to update a model: write a new file beside it, then rename it over.
            Path part = Files.write(
                    work.resolve("kept.gguf.part"),
                    Files.readAllBytes(TestServer.model("tiny-llama", SynthSpec.tiny("llama"))));
            Files.move(part, kept, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            // Then a bad write in place to the other model in the same folder: once the watch has seen
            // it, it has seen the rename (earlier events of the same folder) too.
            try (FileChannel c = FileChannel.open(broken, StandardOpenOption.WRITE)) {
                c.truncate(4096);
            }
            await(http, "broken", s -> s.path("reloading").asBoolean());
            ok(http.post("/v1/chat/completions", CHAT.formatted("kept").replace("hello", "still the mapped file")));
            JsonNode k = model(http, "kept");
            assertEquals("loaded", k.get("status").get("value").asText(), k.toString());
            assertEquals(loads, k.get("loads").asInt(), "not reloaded");
            // The truncated file's reload fails: unavailable, with the load's reason, and the server serves on.
            JsonNode b = await(http, "broken", s -> s.get("value").asText().equals("failed"));
            assertFalse(b.get("available").asBoolean(), b.toString());
            HttpResponse<String> r = http.post("/v1/chat/completions", CHAT.formatted("broken"));
            assertEquals(400, r.statusCode(), r.body());
            assertTrue(r.body().contains("the model failed to load"), r.body());
            ok(http.post("/v1/chat/completions", CHAT.formatted("kept").replace("hello", "and on")));
        }
    }
}
