package forge.http.hub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.ForgeException;
import forge.runtime.catalog.ModelSource;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pulls from a loopback imitation of the hub ({@link FakeHub}): nothing reaches the internet. */
class HubPullTest {

    @TempDir
    Path hubCache;

    FakeHub hub;
    final byte[] q4 = bytes(1, 300_000);
    final byte[] q8 = bytes(2, 500_000);
    final List<HubPull.Progress> progress = new ArrayList<>();

    static byte[] bytes(long seed, int n) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @BeforeEach
    void start() throws Exception {
        hub = new FakeHub()
                .file("org/repo", "tiny-Q4_K_M.gguf", q4)
                .file("org/repo", "tiny-Q8_0.gguf", q8)
                .file("org/repo", "mmproj-tiny-Q8_0.gguf", bytes(3, 100))
                .file("org/split", "big-Q8_0-00001-of-00002.gguf", bytes(4, 200_000))
                .file("org/split", "big-Q8_0-00002-of-00002.gguf", bytes(5, 200_000));
    }

    @AfterEach
    void stop() throws Exception {
        hub.close();
    }

    private HubPull pull(String token) {
        return new HubPull(URI.create(hub.endpoint()), token, hubCache);
    }

    private Path repo(String repo) {
        return hubCache.resolve("models--" + repo.replace("/", "--"));
    }

    @Test
    void theQuantIsChosenByTagAndWrittenInTheHubCacheLayout() throws Exception {
        HubPull.Result r = pull(null).pull(HubPull.Target.parse("org/repo:Q8_0"), progress::add);
        assertEquals("org/repo/tiny-Q8_0", r.id());
        Path snapshot =
                repo("org/repo").resolve("snapshots").resolve(FakeHub.COMMIT).resolve("tiny-Q8_0.gguf");
        assertEquals(List.of(snapshot), r.files());
        assertTrue(Files.isSymbolicLink(snapshot));
        assertEquals(Path.of("../../blobs/" + FakeHub.sha256(q8)), Files.readSymbolicLink(snapshot));
        assertEquals(FakeHub.COMMIT, Files.readString(repo("org/repo").resolve("refs/main")));
        assertTrue(java.util.Arrays.equals(q8, Files.readAllBytes(snapshot)));
        // the catalog sees it under the id the pull gave
        assertEquals(
                List.of("org/repo/tiny-Q8_0"),
                new ModelSource.HfCache(hubCache)
                        .scan().stream().map(ModelSource.Found::id).toList());
        // Ollama's /api/pull lines: the manifest, the file with its digest and sizes, success
        assertEquals("pulling manifest", progress.getFirst().status());
        assertEquals("success", progress.getLast().status());
        HubPull.Progress done = progress.stream()
                .filter(p ->
                        p.status().startsWith("pulling " + FakeHub.sha256(q8).substring(0, 12)))
                .reduce((a, b) -> b)
                .orElseThrow();
        assertEquals("sha256:" + FakeHub.sha256(q8), done.digest());
        assertEquals(q8.length, done.total());
        assertEquals(q8.length, done.completed());
    }

    @Test
    void withoutATagItIsQ4KmAndAProjectorIsNeverChosen() {
        assertEquals(
                "org/repo/tiny-Q4_K_M",
                pull(null)
                        .pull(HubPull.Target.parse("hf.co/org/repo"), progress::add)
                        .id());
        var e = assertThrows(
                ForgeException.class, () -> pull(null).pull(HubPull.Target.parse("org/repo:IQ2_XS"), progress::add));
        assertTrue(e.getMessage().contains("no GGUF file for IQ2_XS"), e.getMessage());
        assertTrue(e.getMessage().contains("tiny-Q8_0.gguf"), "it lists what there is: " + e.getMessage());
    }

    /** As llama-server's --mmproj-auto: the projector that goes with the model comes with it, beside it, never as a model. */
    @Test
    void theModelsProjectorComesWithItAndIsFoundAsItsProjector() throws Exception {
        byte[] mmprojQ8 = bytes(6, 1000);
        hub.file("org/vl", "vl-Q4_K_M.gguf", q4)
                .file("org/vl", "mmproj-vl-F16.gguf", bytes(7, 1000))
                .file("org/vl", "mmproj-vl-Q8_0.gguf", mmprojQ8)
                .file("org/vl", "other/mmproj-other-Q4_0.gguf", bytes(8, 1000));
        HubPull.Result r = pull(null).pull(HubPull.Target.parse("org/vl:Q4_K_M"), progress::add);
        // the closest in bits to the model's Q4 among those in its folder or above (not other/'s)
        Path snapshot = repo("org/vl").resolve("snapshots").resolve(FakeHub.COMMIT);
        assertEquals(Optional.of(snapshot.resolve("mmproj-vl-Q8_0.gguf")), r.projector());
        assertTrue(java.util.Arrays.equals(
                mmprojQ8, Files.readAllBytes(r.projector().orElseThrow())));
        assertFalse(Files.exists(snapshot.resolve("mmproj-vl-F16.gguf")), "one projector, not every one");
        var found = new ModelSource.HfCache(hubCache).scan();
        assertEquals(
                List.of("org/vl/vl-Q4_K_M"),
                found.stream().map(ModelSource.Found::id).toList());
        assertEquals(r.projector(), found.getFirst().projector());
        assertTrue(
                progress.stream().anyMatch(p -> p.digest().equals("sha256:" + FakeHub.sha256(mmprojQ8))),
                "its download is reported as the model's is");
        // asked not to (--no-mmproj), only the model comes
        Files.walk(hubCache)
                .sorted(java.util.Comparator.reverseOrder())
                .forEach(p -> p.toFile().delete());
        HubPull.Result bare = pull(null).pull(HubPull.Target.parse("org/vl:Q4_K_M"), false, progress::add);
        assertEquals(Optional.empty(), bare.projector());
        assertFalse(Files.exists(snapshot.resolve("mmproj-vl-Q8_0.gguf")));
        assertEquals(
                Optional.empty(),
                new ModelSource.HfCache(hubCache).scan().getFirst().projector());
        // a file named directly brings its projector too
        HubPull.Result named = pull(null).pull(HubPull.Target.parse("org/vl/vl-Q4_K_M.gguf"), progress::add);
        assertEquals(Optional.of(snapshot.resolve("mmproj-vl-Q8_0.gguf")), named.projector());
    }

    @Test
    void theProjectorIsPickedAsLlamaCppPicksIt() {
        // the deepest folder on the model's path first, then the closest quant
        assertEquals(
                Optional.of("Q4/mmproj-F32.gguf"),
                HubPull.bestProjector(
                        List.of("mmproj-F16.gguf", "Q4/mmproj-F32.gguf", "Q8/mmproj-Q8_0.gguf", "Q4/model-Q4_K_M.gguf"),
                        "Q4/model-Q4_K_M.gguf"));
        assertEquals(
                Optional.of("mmproj-BF16.gguf"),
                HubPull.bestProjector(
                        List.of("mmproj-BF16.gguf", "mmproj-F32.gguf", "sub/mmproj-F16.gguf"), "model-F16.gguf"));
        assertEquals(Optional.empty(), HubPull.bestProjector(List.of("model-Q4_K_M.gguf"), "model-Q4_K_M.gguf"));
        assertEquals(4, HubPull.quantBits("a/model-Q4_K_M.gguf"));
        assertEquals(16, HubPull.quantBits("mmproj-model-f16.gguf"));
        assertEquals(8, HubPull.quantBits("big-Q8_0-00001-of-00002.gguf"));
        assertEquals(0, HubPull.quantBits("mmproj.gguf"));
    }

    @Test
    void aSplitModelIsPulledWholeAsOneModel() throws Exception {
        HubPull.Result r = pull(null).pull(HubPull.Target.parse("org/split:Q8_0"), progress::add);
        assertEquals("org/split/big-Q8_0", r.id());
        assertEquals(2, r.files().size());
        var found = new ModelSource.HfCache(hubCache).scan();
        assertEquals(1, found.size());
        assertEquals(2, found.getFirst().parts().size());
        assertEquals("", found.getFirst().problem());
        // a file named directly brings its parts too
        Files.walk(hubCache)
                .sorted(java.util.Comparator.reverseOrder())
                .forEach(p -> p.toFile().delete());
        assertEquals(
                2,
                pull(null)
                        .pull(HubPull.Target.parse("org/split/big-Q8_0-00001-of-00002.gguf"), progress::add)
                        .files()
                        .size());
    }

    @Test
    void aConnectionCutHalfwayIsResumedWithRange() throws Exception {
        hub.cuts.set(1);
        HubPull.Result r = pull(null).pull(HubPull.Target.parse("org/repo:Q8_0"), progress::add);
        assertTrue(java.util.Arrays.equals(q8, Files.readAllBytes(r.files().getFirst())));
        // resumed from what came before the cut (about half: the last bytes sent may be lost with the connection)
        var resumedAt = java.util.regex.Pattern.compile("range=bytes=(\\d+)-");
        assertTrue(
                hub.log.stream()
                        .filter(l -> l.startsWith("blob GET"))
                        .map(resumedAt::matcher)
                        .filter(java.util.regex.Matcher::find)
                        .mapToLong(m -> Long.parseLong(m.group(1)))
                        .anyMatch(n -> n > 0 && n <= q8.length / 2),
                String.join("\n", hub.log));
    }

    @Test
    void aPullThatKeepsBeingCutLeavesNothingServedAndTheNextOneResumes() throws Exception {
        hub.cuts.set(-1);
        assertThrows(ForgeException.class, () -> pull(null).pull(HubPull.Target.parse("org/repo:Q8_0"), progress::add));
        assertTrue(new ModelSource.HfCache(hubCache).scan().isEmpty(), "nothing partial is a model");
        Path incomplete = repo("org/repo").resolve("blobs").resolve(FakeHub.sha256(q8) + ".incomplete");
        long kept = Files.size(incomplete);
        assertTrue(kept > 0 && kept < q8.length, "what came is kept for the next pull: " + kept);
        hub.cuts.set(0);
        hub.log.clear();
        pull(null).pull(HubPull.Target.parse("org/repo:Q8_0"), progress::add);
        assertTrue(
                hub.log.stream().anyMatch(l -> l.startsWith("blob GET") && l.contains("range=bytes=" + kept + "-")),
                String.join("\n", hub.log));
        assertFalse(Files.exists(incomplete));
        assertEquals(1, new ModelSource.HfCache(hubCache).scan().size());
    }

    @Test
    void bytesThatDoNotHashToTheLfsIdAreDeletedAndNeverLinked() throws Exception {
        hub.corrupt = true;
        var e = assertThrows(
                ForgeException.class, () -> pull(null).pull(HubPull.Target.parse("org/repo:Q8_0"), progress::add));
        assertTrue(e.getMessage().contains("sha256 mismatch"), e.getMessage());
        assertTrue(new ModelSource.HfCache(hubCache).scan().isEmpty());
        try (Stream<Path> files = Files.walk(repo("org/repo"))) {
            assertEquals(
                    List.of(), files.filter(Files::isRegularFile).toList(), "no blob, no .incomplete, no snapshot");
        }
    }

    @Test
    void aGatedRepositorySaysToSetHfTokenAndTheTokenGoesToTheHubOnly() throws Exception {
        hub.token = "hf_secret";
        var e = assertThrows(
                ForgeException.class, () -> pull(null).pull(HubPull.Target.parse("org/repo:Q8_0"), progress::add));
        assertTrue(e.getMessage().contains("401") && e.getMessage().contains("HF_TOKEN"), e.getMessage());
        hub.log.clear();
        pull("hf_secret").pull(HubPull.Target.parse("org/repo:Q8_0"), progress::add);
        assertTrue(
                hub.log.stream().filter(l -> l.startsWith("hub ")).allMatch(l -> l.contains("Bearer hf_secret")),
                String.join("\n", hub.log));
        assertTrue(
                hub.log.stream().filter(l -> l.startsWith("blob ")).noneMatch(l -> l.contains("hf_secret")),
                String.join("\n", hub.log));
        assertTrue(hub.log.stream().anyMatch(l -> l.startsWith("blob ")), "the bytes came from the blob host");
    }

    @Test
    void targetsAreParsedAsOllamaAndLlamaCppWriteThem() {
        assertEquals(new HubPull.Target("org/repo", "Q4_K_M", ""), HubPull.Target.parse("org/repo:Q4_K_M"));
        assertEquals(new HubPull.Target("org/repo", "", "sub/f.gguf"), HubPull.Target.parse("org/repo/sub/f.gguf"));
        assertEquals(new HubPull.Target("org/repo", "q8_0", ""), HubPull.Target.parse("hf.co/org/repo:q8_0"));
        assertThrows(ForgeException.class, () -> HubPull.Target.parse("justaname"));
        assertThrows(ForgeException.class, () -> HubPull.Target.parse("org/repo/../../x.gguf"));
        assertThrows(ForgeException.class, () -> HubPull.Target.parse("../org/repo"));
    }
}
