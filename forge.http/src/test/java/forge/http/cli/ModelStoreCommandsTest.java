package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.http.hub.FakeHub;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code forge models list|inspect|alias|rm|pull|load|unload} in a temporary {@code HOME}. */
class ModelStoreCommandsTest {

    @TempDir
    Path home;

    Map<String, String> env = new HashMap<>();

    @BeforeEach
    void home() throws Exception {
        env.put("HOME", home.toString());
        System.setProperty("forge.user.home", home.resolve(".forge").toString());
        Path tiny = UserModels.tiny("store-tiny");
        UserModels.folder(home, "mine.gguf", tiny);
        Files.writeString(home.resolve(".forge/models/broken.gguf"), "not a GGUF");
        UserModels.ollama(home, "tinyllama", "1b", tiny);
        UserModels.hfCache(home, "org", "repo", "tiny-q8.gguf", tiny);
    }

    /** Runs {@code command} with {@code args} in the test's environment; returns rc and output. */
    private String run(Object command, ModelSourceOptions sources, int expectedRc, String... args) {
        sources.environment = env;
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        String[] all = java.util.stream.Stream.concat(
                        java.util.Arrays.stream(args),
                        command instanceof ModelStoreCommands.Pull || command instanceof ModelStoreCommands.ServerCall
                                ? java.util.stream.Stream.of()
                                : java.util.stream.Stream.of(
                                        "--plugins-dir",
                                        home.resolve("no-plugins").toString()))
                .toArray(String[]::new);
        int rc = new CommandLine(command)
                .setOut(new PrintWriter(out))
                .setErr(new PrintWriter(err))
                .execute(all);
        assertEquals(expectedRc, rc, out + "\n" + err);
        return out + err.toString();
    }

    @Test
    void listShowsEverySourceAndWhyAModelIsUnavailable() {
        var list = new ModelStoreCommands.List_();
        String out = run(list, list.sources, 0);
        for (String id : new String[] {"mine", "tinyllama:1b", "org/repo/tiny-q8", "broken"}) {
            assertTrue(out.contains(id), id + " in\n" + out);
        }
        assertTrue(out.contains("UNAVAILABLE: not a readable GGUF file"), out);
        var off = new ModelStoreCommands.List_();
        String without = run(off, off.sources, 0, "--no-ollama", "--no-hf-cache");
        assertFalse(without.contains("tinyllama:1b") || without.contains("org/repo"), without);
    }

    @Test
    void aliasWritesTheCatalogFileAndRmDeletesOnlyWhatForgeOwns() throws Exception {
        var alias = new ModelStoreCommands.Alias();
        assertTrue(run(alias, alias.sources, 0, "coder", "tinyllama:1b").contains("coder -> tinyllama:1b"));
        assertEquals(
                Map.of("coder", "tinyllama:1b"),
                ModelsFile.read(home.resolve(".forge/models.json")).aliases());
        var wrong = new ModelStoreCommands.Alias();
        assertTrue(run(wrong, wrong.sources, 1, "x", "nobody").contains("no model answers to 'nobody'"));

        var rmOllama = new ModelStoreCommands.Rm();
        assertTrue(run(rmOllama, rmOllama.sources, 1, "coder").contains("ollama rm"));
        assertTrue(Files.exists(home.resolve(".ollama/models/blobs")));

        var rm = new ModelStoreCommands.Rm();
        run(rm, rm.sources, 0, "org/repo/tiny-q8");
        Path repo = home.resolve(".cache/huggingface/hub/models--org--repo");
        try (var files = Files.walk(repo)) {
            assertEquals(
                    0,
                    files.filter(p -> Files.isRegularFile(p) || Files.isSymbolicLink(p))
                            .filter(p -> !p.endsWith("main"))
                            .count());
        }
        var rmMine = new ModelStoreCommands.Rm();
        run(rmMine, rmMine.sources, 0, "mine");
        assertFalse(Files.exists(home.resolve(".forge/models/mine.gguf")));

        var remove = new ModelStoreCommands.Alias();
        run(remove, remove.sources, 0, "--remove", "coder");
        assertEquals(
                Map.of(), ModelsFile.read(home.resolve(".forge/models.json")).aliases());
    }

    @Test
    void inspectTakesAnIdAndShowsMetadataQuantizationAndTemplate() {
        var inspect = new ModelCommand.Inspect();
        String out = run(inspect, inspect.sources, 0, "tinyllama:1b");
        assertTrue(out.contains("source:         ollama"), out);
        assertTrue(out.contains("architecture:   qwen2"), out);
        assertTrue(out.contains("quantization:"), out);
        assertTrue(out.contains("context:"), out);
        assertTrue(out.contains("general.architecture"), out);
        assertTrue(out.contains("chat template:"), out);
    }

    @Test
    void pullPrintsProgressLinesOffATerminalAndTheModelIsListedAfter() throws Exception {
        byte[] gguf = Files.readAllBytes(UserModels.tiny("store-tiny"));
        try (FakeHub hub = new FakeHub().file("someone/Tiny-GGUF", "tiny-Q4_K_M.gguf", gguf)) {
            var pull = new ModelStoreCommands.Pull();
            pull.terminal = false;
            env.put("HF_ENDPOINT", hub.endpoint());
            String out = run(pull, pull.sources, 0, "someone/Tiny-GGUF");
            assertTrue(out.contains("pulling manifest"), out);
            assertTrue(out.contains(": 100% ("), out);
            assertTrue(out.contains("serve it as someone/Tiny-GGUF/tiny-Q4_K_M"), out);
            var list = new ModelStoreCommands.List_();
            assertTrue(run(list, list.sources, 0).contains("someone/Tiny-GGUF/tiny-Q4_K_M"));
            // --hf-endpoint wins over HF_ENDPOINT; on a terminal the progress is one bar redrawn in place
            env.put("HF_ENDPOINT", "http://127.0.0.1:1");
            Files.walk(home.resolve(".cache/huggingface/hub/models--someone--Tiny-GGUF"))
                    .sorted(java.util.Comparator.reverseOrder())
                    .forEach(p -> p.toFile().delete());
            var again = new ModelStoreCommands.Pull();
            again.terminal = true;
            String bar = run(again, again.sources, 0, "--hf-endpoint", hub.endpoint(), "someone/Tiny-GGUF");
            assertTrue(bar.contains("\r") && bar.contains("[#########################] 100%"), bar);
            assertFalse(bar.contains(": 100% ("), "no progress lines on a terminal: " + bar);
        }
    }

    @Test
    void loadAndUnloadCallARunningServer() throws Exception {
        try (TestServer server = TestServer.serve(UserModels.tiny("store-tiny"), "-c 256 -np 1 -t 2")) {
            String url = "http://127.0.0.1:" + server.port();
            var unload = new ModelStoreCommands.Unload();
            assertTrue(run(unload, new ModelSourceOptions(), 0, "--url", url, "store-tiny")
                    .contains("\"success\":true"));
            UserModelsEndToEndTest.http = server.http();
            UserModelsEndToEndTest.awaitState("store-tiny", "unloaded");
            var load = new ModelStoreCommands.Load();
            assertTrue(run(load, new ModelSourceOptions(), 0, "--url", url, "store-tiny")
                    .contains("\"value\":\"loaded\""));
            var missing = new ModelStoreCommands.Load();
            assertTrue(run(missing, new ModelSourceOptions(), 1, "--url", url, "nobody")
                    .contains("model_not_found"));
        }
    }
}
