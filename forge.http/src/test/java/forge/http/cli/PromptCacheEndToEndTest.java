package forge.http.cli;

import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.lib.gguf.synth.SynthSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host prompt cache through {@code forge serve}: {@code --cache-ram} keeps a session's prompt
 * when another one takes its slot, {@code --prompt-cache-dir} keeps it across a restart, and a
 * start with other settings (two slots) deletes what it cannot use. {@code /v1/chat/completions}
 * and {@code /v1/completions} report {@code cached_tokens}.
 */
class PromptCacheEndToEndTest {

    @TempDir
    Path dir;

    private static String system(String who) {
        StringBuilder b = new StringBuilder("You are " + who + ", a careful assistant.");
        for (int i = 0; i < 40; i++) {
            b.append(" Rule ").append(i).append(" for ").append(who).append('.');
        }
        return b.toString();
    }

    /** A chat turn: {@code system}, then {@code question}. */
    private static JsonNode complete(TestServer server, String system, String question) throws Exception {
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        body.put("model", "tiny");
        body.putArray("messages")
                .add(JsonNodeFactory.instance.objectNode().put("role", "system").put("content", system))
                .add(JsonNodeFactory.instance.objectNode().put("role", "user").put("content", question));
        body.put("max_tokens", 4);
        body.put("temperature", 0);
        return ok(server.http().post("/v1/chat/completions", body.toString()));
    }

    private static String text(JsonNode completion) {
        return completion.get("choices").get(0).get("message").get("content").asText();
    }

    private static int cached(JsonNode completion) {
        return completion
                .get("usage")
                .get("prompt_tokens_details")
                .get("cached_tokens")
                .asInt();
    }

    private List<Path> files() throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".fpc")).toList();
        }
    }

    @Test
    void aKnownSystemPromptIsRestoredAfterARestartAndOtherSettingsDeleteIt() throws Exception {
        Path model = TestServer.model("tiny", SynthSpec.tiny("qwen"));
        String[] args = {"-m", model.toString(), "-c", "1024", "-np", "1", "--prompt-cache-dir", dir.toString()};
        String first;
        try (TestServer server = TestServer.start(args)) {
            first = text(complete(server, system("Ada"), "First question?"));
            complete(server, system("Bob"), "Another question?"); // takes the only slot: Ada's is saved
            JsonNode cache = ok(server.http().get("/props")).get("runtime").get("prompt_cache");
            assertEquals(1, cache.get("saves").asInt(), cache.toString());
            assertEquals(1, cache.get("entries").asInt());
            assertEquals(dir.toString(), cache.get("dir").asText());
            int mib = cache.get("cache_ram_mib").asInt();
            assertTrue(mib > 0 && mib <= 8192, "llama-server's default, at most half the heap: " + mib);
        }
        assertEquals(2, files().size(), "Ada's, written when Bob took her slot, and Bob's, as the server stopped");

        try (TestServer server = TestServer.start(args)) {
            JsonNode again = complete(server, system("Ada"), "First question?");
            int cached = cached(again);
            assertTrue(cached > 100, "the first request after a restart restores its system prompt: " + cached);
            assertEquals(first, text(again), "and answers as before");
            JsonNode cache = ok(server.http().get("/props")).get("runtime").get("prompt_cache");
            assertEquals(1, cache.get("restores").asInt(), cache.toString());
            assertEquals(cached, cache.get("restored_tokens").asInt());
        }

        try (TestServer server = TestServer.serve(model, "-c 2048 -np 2", "--prompt-cache-dir", dir.toString())) {
            int cached = cached(complete(server, system("Ada"), "First question?"));
            assertEquals(0, cached, "a state saved with other settings is never restored");
            assertEquals(
                    0,
                    ok(server.http().get("/props"))
                            .get("runtime")
                            .get("prompt_cache")
                            .get("restores")
                            .asInt());
            assertTrue(files().isEmpty(), "the stale files were deleted: " + files());
        }
    }

    @Test
    void theConversationsInTheSlotsAtShutdownAreRestoredAfterTheRestart() throws Exception {
        Path model = TestServer.model("tiny", SynthSpec.tiny("qwen"));
        String[] args = {"-m", model.toString(), "-c", "2048", "-np", "2", "--prompt-cache-dir", dir.toString()};
        try (TestServer server = TestServer.start(args)) {
            complete(server, system("Ada"), "First question?");
            complete(server, system("Bob"), "Another question?"); // the last conversation: in a slot at shutdown
        }
        assertEquals(2, files().size(), "Bob's slot was saved as the server stopped: " + files());
        try (TestServer server = TestServer.start(args)) {
            assertTrue(cached(complete(server, system("Bob"), "Another question?")) > 100);
            assertTrue(cached(complete(server, system("Ada"), "First question?")) > 100);
        }
    }

    @Test
    void completionsReportThePromptTokensTheyReused() throws Exception {
        Path model = TestServer.model("tiny", SynthSpec.tiny("qwen"));
        try (TestServer server = TestServer.serve(model, "-c 1024 -np 1")) {
            ObjectNode body = JsonNodeFactory.instance
                    .objectNode()
                    .put("model", "tiny")
                    .put("prompt", system("Ada"))
                    .put("max_tokens", 2)
                    .put("temperature", 0);
            assertEquals(0, cached(ok(server.http().post("/v1/completions", body.toString()))));
            JsonNode again = ok(server.http().post("/v1/completions", body.toString()));
            int prompt = again.get("usage").get("prompt_tokens").asInt();
            assertTrue(
                    cached(again) > prompt / 2 && cached(again) < prompt,
                    "the slot's prompt, bar the last token: " + again.get("usage"));
            // n choices read one prompt, counted once in usage, as is what they reused
            body.put("n", 2);
            JsonNode two = ok(server.http().post("/v1/completions", body.toString()));
            assertEquals(prompt, two.get("usage").get("prompt_tokens").asInt());
            assertTrue(
                    cached(two) > prompt / 2 && cached(two) < prompt,
                    two.get("usage").toString());
            body.put("n", 1).put("stream", true).putObject("stream_options").put("include_usage", true);
            String events =
                    server.http().post("/v1/completions", body.toString()).body();
            String last = events.lines()
                    .filter(l -> l.contains("\"usage\""))
                    .reduce((a, b) -> b)
                    .orElseThrow();
            assertTrue(
                    cached(new com.fasterxml.jackson.databind.ObjectMapper()
                                    .readTree(last.substring("data: ".length())))
                            > prompt / 2,
                    last);
        }
    }

    @Test
    void cacheRamZeroTurnsItOff() throws Exception {
        Path model = TestServer.model("tiny", SynthSpec.tiny("qwen"));
        try (TestServer server = TestServer.serve(model, "-c 1024 -np 1 --cache-ram 0")) {
            complete(server, system("Ada"), "First question?");
            complete(server, system("Bob"), "Another question?");
            int cached = cached(complete(server, system("Ada"), "First question?"));
            assertTrue(cached < 20, "only the chat template's opening, which Bob's turn shares, is reused: " + cached);
            JsonNode cache = ok(server.http().get("/props")).get("runtime").get("prompt_cache");
            assertEquals(0, cache.get("cache_ram_mib").asInt());
            assertEquals(0, cache.get("saves").asInt());
        }
    }
}
