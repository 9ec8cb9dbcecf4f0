package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.api.ForgeException;
import forge.lib.gguf.synth.SynthSpec;
import forge.lib.gguf.synth.SyntheticModels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * LoRA adapters end to end on a real server with the synthetic model and two synthetic adapters:
 * {@code --lora} and {@code --lora-scaled} at start, {@code GET/POST /lora-adapters}, the
 * per-request {@code lora} list on completions and chat, an adapter served as a model id of its
 * own, adapters found beside their model in a models folder, requests of different adapter sets
 * running at once, the refusal of an adapter of another base model, and vLLM's LoRA gauge. Greedy
 * output is noise but deterministic: what changes it (and what does not) is what is tested.
 */
class LoraEndToEndTest {

    static final SynthSpec BASE = SynthSpec.tiny("qwen");

    @TempDir
    static Path dir;

    @AutoClose
    static TestServer server;

    static Http http;
    static Path model;
    static Path adapterA;
    static Path adapterB;

    @BeforeAll
    static void start() throws Exception {
        model = TestServer.model("lora-base", BASE);
        adapterA = dir.resolve("lora-a.gguf");
        adapterB = dir.resolve("lora-b.gguf");
        SyntheticModels.writeLora(BASE, 8, 8f, 1, adapterA);
        SyntheticModels.writeLora(BASE, 4, 4f, 2, adapterB);
        server = TestServer.serve(
                model, "-c 2048 -np 2 -t 2", "--lora", adapterA.toString(), "--lora-scaled", adapterB + ":0.5");
        http = server.http();
    }

    /** Both adapters at scale 0: the base model. */
    static final String NONE = ",\"lora\":[{\"id\":0,\"scale\":0},{\"id\":1,\"scale\":0}]";

    static final String PROMPT = "The quick brown fox jumps over the lazy dog and then";

    /** A greedy completion: its text and cached prompt tokens. */
    static JsonNode complete(String extra) throws Exception {
        return Http.ok(http.post(
                "/v1/completions",
                "{\"prompt\":\"" + PROMPT + "\",\"max_tokens\":16,\"temperature\":0,\"ignore_eos\":true" + extra
                        + "}"));
    }

    static String text(String extra) throws Exception {
        return complete(extra).get("choices").get(0).get("text").asText();
    }

    @Test
    void theOutputChangesWithTheAdapterAndItsScaleAndScaleZeroIsTheBaseModel() throws Exception {
        String base = text(NONE);
        assertEquals(text(""), text(",\"lora\":[]"), "an empty list is no list, as llama-server reads it");
        assertNotEquals(base, text(""), "which applies the start scales");
        String full = text(",\"lora\":[{\"id\":0,\"scale\":1}]");
        String half = text(",\"lora\":[{\"id\":0,\"scale\":0.5}]");
        String other = text(",\"lora\":[{\"id\":1,\"scale\":1}]");
        assertNotEquals(base, full, "adapter 0 changes the output");
        assertNotEquals(full, half, "so does its scale");
        assertNotEquals(full, other, "adapter 1 is another adapter");
        assertEquals(base, text(",\"lora\":[{\"id\":1,\"scale\":0}]"), "scale 0 is no adapter");
        // The adapter served as a model of its own is the base with it at scale 1.
        assertEquals(full, text(",\"model\":\"lora-a\""));
        // Chat completions read the same list.
        String chat = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":8,\"temperature\":0";
        String chatBase =
                Http.ok(http.post("/v1/chat/completions", chat + NONE + "}")).toString();
        String chatFull = Http.ok(http.post("/v1/chat/completions", chat + ",\"lora\":[{\"id\":0,\"scale\":1}]}"))
                .toString();
        assertNotEquals(
                chatBase.replaceAll("\"(id|created|system_fingerprint)\":[^,]*,", ""),
                chatFull.replaceAll("\"(id|created|system_fingerprint)\":[^,]*,", ""));
    }

    @Test
    void loraAdaptersListsTheStartAdaptersAndPostSetsTheScalesOfRequestsThatNameNone() throws Exception {
        JsonNode list = Http.ok(http.get("/lora-adapters"));
        assertEquals(2, list.size());
        assertEquals(0, list.get(0).get("id").asInt());
        assertEquals(adapterA.toString(), list.get(0).get("path").asText());
        assertEquals(1.0, list.get(0).get("scale").asDouble());
        assertEquals(0.5, list.get(1).get("scale").asDouble());
        String both = text(",\"lora\":[{\"id\":0,\"scale\":1},{\"id\":1,\"scale\":0.5}]");
        assertEquals(both, text(""), "a request naming no lora applies --lora at 1 and --lora-scaled at its scale");
        try {
            assertTrue(Http.ok(http.post("/lora-adapters", "[{\"id\":1,\"scale\":1}]"))
                    .get("success")
                    .asBoolean());
            list = Http.ok(http.get("/lora-adapters"));
            assertEquals(0.0, list.get(0).get("scale").asDouble(), "left out: 0, as llama-server");
            assertEquals(1.0, list.get(1).get("scale").asDouble());
            assertEquals(text(",\"lora\":[{\"id\":1,\"scale\":1}]"), text(""));
            var bad = http.post("/lora-adapters", "[{\"id\":7,\"scale\":1}]");
            assertEquals(400, bad.statusCode(), bad.body());
            assertTrue(bad.body().contains("no adapter 7"), bad.body());
            assertEquals(400, http.post("/lora-adapters", "{\"id\":0}").statusCode());
        } finally {
            Http.ok(http.post("/lora-adapters", "[{\"id\":0,\"scale\":1},{\"id\":1,\"scale\":0.5}]"));
        }
    }

    @Test
    void aBadLoraListIsA400NamingTheFieldAndHarmsNothing() throws Exception {
        var r = http.post("/v1/completions", "{\"prompt\":\"x\",\"max_tokens\":2,\"lora\":[{\"id\":5,\"scale\":1}]}");
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(r.body().contains("adapter 5") && r.body().contains("\"param\":\"lora\""), r.body());
        r = http.post("/v1/completions", "{\"prompt\":\"x\",\"max_tokens\":2,\"lora\":{\"id\":0}}");
        assertEquals(400, r.statusCode(), r.body());
        r = http.post(
                "/v1/chat/completions",
                "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"lora\":[{\"id\":0,\"scale\":\"big\"}]}");
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(r.body().contains("lora[0].scale"), r.body());
        // read like every field: not named among the ignored ones
        var ok = http.post("/v1/completions", "{\"prompt\":\"x\",\"max_tokens\":2" + NONE + "}");
        assertEquals(200, ok.statusCode(), ok.body());
        assertTrue(
                ok.headers().firstValue("X-Forge-Ignored-Params").orElse("").isEmpty(),
                ok.headers().toString());
        assertTrue(text("").length() > 0, "the server serves on");
    }

    @Test
    void aCachedPrefixIsNotReusedAcrossAdapterSets() throws Exception {
        String p = ",\"prompt\":\"" + PROMPT + " once more, with feeling\"";
        complete(p + NONE);
        JsonNode other = complete(p + ",\"lora\":[{\"id\":0,\"scale\":1}]");
        assertEquals(
                0,
                other.get("usage")
                        .get("prompt_tokens_details")
                        .get("cached_tokens")
                        .asInt(),
                other.toString());
        JsonNode same = complete(p + ",\"lora\":[{\"id\":0,\"scale\":1}]");
        assertTrue(
                same.get("usage")
                                .get("prompt_tokens_details")
                                .get("cached_tokens")
                                .asInt()
                        > 0,
                same.toString());
    }

    /**
     * Two requests of different adapter sets at once (two slots) each get the output they get
     * alone; while one streams, vLLM's LoRA gauge names its adapter as running.
     */
    @Test
    void concurrentRequestsOfDifferentAdaptersEachGetTheirOwnOutput() throws Exception {
        String body = "{\"prompt\":\"" + PROMPT + "\",\"max_tokens\":40,\"temperature\":0,\"ignore_eos\":true";
        String aloneA = Http.ok(http.post("/v1/completions", body + ",\"model\":\"lora-a\"}"))
                .get("choices")
                .get(0)
                .get("text")
                .asText();
        String aloneB = Http.ok(http.post("/v1/completions", body + ",\"lora\":[{\"id\":1,\"scale\":1}]}"))
                .get("choices")
                .get(0)
                .get("text")
                .asText();
        assertNotEquals(aloneA, aloneB);

        // While a request of lora-a runs, the gauge says so, as the gateway's picker reads it. The request is
        // long (900 tokens) and read no further than its first chunk, so it is still running when /metrics is
        // read; it is cancelled after.
        String longBody = "{\"prompt\":\"" + PROMPT
                + "\",\"max_tokens\":900,\"temperature\":0,\"ignore_eos\":true,\"model\":\"lora-a\",\"stream\":true}";
        var running = http.stream("/v1/completions", longBody);
        assertEquals(200, running.statusCode());
        try (Stream<String> lines = running.body()) {
            assertTrue(next(lines.iterator(), new StringBuilder()) != null, "a first chunk");
            String info = "";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!info.contains("running_lora_adapters=\"lora-a\"") && System.nanoTime() < deadline) {
                String metrics = http.get("/metrics").body();
                info = metrics.lines()
                        .filter(l -> l.startsWith("vllm:lora_requests_info{"))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("no vllm:lora_requests_info in\n" + metrics));
            }
            assertTrue(info.contains("running_lora_adapters=\"lora-a\""), info);
            assertTrue(info.contains("max_lora=\"2\""), info);
            assertTrue(info.contains("model_name=\"lora-base\""), info);
            assertTrue(Double.parseDouble(info.substring(info.lastIndexOf(' ') + 1)) > 1.7e9, "a time: " + info);
        }

        var stream = http.stream("/v1/completions", body + ",\"model\":\"lora-a\",\"stream\":true}");
        assertEquals(200, stream.statusCode());
        StringBuilder streamed = new StringBuilder();
        try (Stream<String> lines = stream.body()) {
            Iterator<String> it = lines.iterator();
            String first = next(it, streamed);
            assertTrue(first != null, "a first chunk");
            CompletableFuture<String> b = CompletableFuture.supplyAsync(() -> {
                try {
                    return Http.ok(http.post("/v1/completions", body + ",\"lora\":[{\"id\":1,\"scale\":1}]}"))
                            .get("choices")
                            .get(0)
                            .get("text")
                            .asText();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            while (next(it, streamed) != null) {
                // read A to its end while B runs beside it
            }
            assertEquals(aloneB, b.get());
        }
        assertEquals(aloneA, streamed.toString());
    }

    /** The next chunk's text appended to {@code out}; null at the stream's end. */
    private static String next(Iterator<String> it, StringBuilder out) throws Exception {
        while (it.hasNext()) {
            String line = it.next();
            if (!line.startsWith("data: ")) {
                continue;
            }
            String data = line.substring(6);
            if (data.equals("[DONE]")) {
                return null;
            }
            String t =
                    Http.JSON.readTree(data).get("choices").get(0).get("text").asText();
            out.append(t);
            return t;
        }
        return null;
    }

    /**
     * The adapters belong to their model: unloaded with it (llama.cpp frees them with the weights,
     * after the engine's context), loaded again with it, and applied as before.
     */
    @Test
    void adaptersUnloadAndLoadAgainWithTheirModel() throws Exception {
        String full = text(",\"model\":\"lora-a\"");
        var entry = server.running().catalog().find("lora-base").orElseThrow();
        Http.ok(http.post("/models/unload", "{\"model\":\"lora-base\"}"));
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (entry.served().isPresent()) { // the unload runs on the loader thread: awaited, with a deadline
            assertTrue(System.nanoTime() < deadline, "lora-base did not unload");
            Thread.sleep(20);
        }
        assertEquals(full, text(",\"model\":\"lora-a\""), "loaded again with the model, on demand");
        assertEquals(2, entry.served().orElseThrow().adapters().size());
    }

    @Test
    void v1ModelsListsEachAdapterAsAModelOfItsOwn() throws Exception {
        JsonNode data = Http.ok(http.get("/v1/models")).get("data");
        List<String> ids = new ArrayList<>();
        data.forEach(m -> ids.add(m.get("id").asText()));
        assertEquals(List.of("lora-base", "lora-a", "lora-b"), ids);
        JsonNode a = data.get(1);
        assertEquals("lora-base", a.get("parent").asText());
        assertEquals(adapterA.toString(), a.get("root").asText());
        assertEquals(0, a.get("lora").get("id").asInt());
    }

    @Test
    void anAdapterOfAnotherBaseModelIsRefusedAtStartWithTheReason() throws Exception {
        Path wide = dir.resolve("wide-lora.gguf");
        SyntheticModels.writeLora(BASE.withShape(128, 2, 4, 2, 128), 4, 4f, 1, wide);
        ForgeException e = assertThrows(
                ForgeException.class,
                () -> TestServer.start("-m", model.toString(), "--lora", wide.toString(), "-c", "512"));
        assertTrue(
                e.getMessage().contains("does not fit the model lora-base")
                        && e.getMessage().contains("another shape"),
                e.getMessage());
        Path llama = dir.resolve("llama-lora.gguf");
        SyntheticModels.writeLora(SynthSpec.tiny("llama"), 4, 4f, 1, llama);
        e = assertThrows(
                ForgeException.class,
                () -> TestServer.start("-m", model.toString(), "--lora-scaled", llama + ":0.5", "-c", "512"));
        assertTrue(e.getMessage().contains("made for architecture 'llama', the model is 'qwen2'"), e.getMessage());
    }

    /**
     * In a models folder and in a Hugging Face snapshot, an adapter beside its model is found with
     * it, served under the id the store gives its file, and applied to no request until asked; one
     * that fits no model beside it is left out.
     */
    @Test
    void adaptersBesideTheirModelInTheModelStoresAreServed() throws Exception {
        Path home = Files.createDirectories(dir.resolve("home"));
        Path folder = UserModels.folder(home, "lora-base.gguf", model).getParent();
        // The adapter as `forge model synth` writes it: the same bytes as the generator's for the same arguments.
        int rc = new CommandLine(new ModelCommand.Synth())
                .execute(
                        "--lora-rank",
                        "8",
                        "--lora-alpha",
                        "8",
                        "--seed",
                        "1",
                        "-o",
                        folder.resolve("lora-a.gguf").toString());
        assertEquals(0, rc);
        assertEquals(-1L, Files.mismatch(adapterA, folder.resolve("lora-a.gguf")));
        SyntheticModels.writeLora(BASE.withShape(128, 2, 4, 2, 128), 4, 4f, 1, folder.resolve("not-for-it.gguf"));
        UserModels.hfCache(home, "org", "repo", "base.gguf", model);
        UserModels.hfCache(home, "org", "repo", "adapter.gguf", adapterB);
        String fullA = text(",\"lora\":[{\"id\":0,\"scale\":1}]");
        String fullB = text(",\"lora\":[{\"id\":1,\"scale\":1}]");
        String base = text(NONE);
        try (TestServer store = TestServer.start(UserModels.environment(home), "-c", "2048", "-np", "2", "-t", "2")) {
            Http h = store.http();
            JsonNode data = Http.ok(h.get("/v1/models")).get("data");
            Map<String, String> parents = new LinkedHashMap<>();
            data.forEach(m -> parents.put(m.get("id").asText(), m.path("parent").asText()));
            assertEquals(
                    Map.of(
                            "lora-base",
                            "",
                            "lora-a",
                            "lora-base",
                            "org/repo/base",
                            "",
                            "org/repo/adapter",
                            "org/repo/base"),
                    parents,
                    "the adapter that fits no model is left out");
            JsonNode list = Http.ok(h.get("/lora-adapters?model=org/repo/base"));
            assertEquals(1, list.size());
            assertEquals(0.0, list.get(0).get("scale").asDouble(), "found, not applied unasked");
            String body = "{\"prompt\":\"" + PROMPT + "\",\"max_tokens\":16,\"temperature\":0,\"ignore_eos\":true";
            assertEquals(
                    base,
                    Http.ok(h.post("/v1/completions", body + ",\"model\":\"lora-base\"}"))
                            .get("choices")
                            .get(0)
                            .get("text")
                            .asText());
            assertEquals(
                    fullA,
                    Http.ok(h.post("/v1/completions", body + ",\"model\":\"lora-a\"}"))
                            .get("choices")
                            .get(0)
                            .get("text")
                            .asText());
            assertEquals(
                    fullB,
                    Http.ok(h.post("/v1/completions", body + ",\"model\":\"org/repo/adapter\"}"))
                            .get("choices")
                            .get(0)
                            .get("text")
                            .asText());
        }
    }
}
