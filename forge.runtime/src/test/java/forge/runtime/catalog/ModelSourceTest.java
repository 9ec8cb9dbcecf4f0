package forge.runtime.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelSourceTest {

    private static Path touch(Path p) throws Exception {
        Files.createDirectories(p.getParent());
        return Files.writeString(p, "x");
    }

    private static Map<String, ModelSource.Found> byId(List<ModelSource.Found> found) {
        return found.stream().collect(Collectors.toMap(ModelSource.Found::id, Function.identity()));
    }

    @Test
    void aFolderGivesFileStemsGroupsSplitsAndSkipsProjectors(@TempDir Path dir) throws Exception {
        touch(dir.resolve("Qwen2.5-7B-Q4_K_M.gguf"));
        touch(dir.resolve("sub/big-00002-of-00003.gguf"));
        touch(dir.resolve("sub/big-00001-of-00003.gguf"));
        touch(dir.resolve("sub/big-00003-of-00003.gguf"));
        touch(dir.resolve("gap-00001-of-00003.gguf"));
        touch(dir.resolve("mmproj-model-f16.gguf"));
        touch(dir.resolve("notes.txt"));
        var found = byId(new ModelSource.Folder(dir).scan());
        assertEquals(java.util.Set.of("Qwen2.5-7B-Q4_K_M", "big", "gap"), found.keySet());
        var big = found.get("big");
        assertEquals(dir.resolve("sub/big-00001-of-00003.gguf"), big.path());
        assertEquals(3, big.parts().size());
        assertEquals("", big.problem());
        assertEquals("split model: parts 2, 3 of 3 missing", found.get("gap").problem());
        assertTrue(new ModelSource.Folder(dir.resolve("missing")).scan().isEmpty());
    }

    @Test
    void ollamaManifestsNameModelsAsOllamaListDoes(@TempDir Path root) throws Exception {
        String hex = "a".repeat(64);
        Path blob = touch(root.resolve("blobs/sha256-" + hex));
        String manifest = """
                {"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:%s","size":1}]}
                """.formatted(hex);
        Files.createDirectories(root.resolve("manifests/registry.ollama.ai/library/qwen2.5-coder"));
        Files.writeString(root.resolve("manifests/registry.ollama.ai/library/qwen2.5-coder/7b"), manifest);
        Files.createDirectories(root.resolve("manifests/registry.ollama.ai/someone/tool"));
        Files.writeString(root.resolve("manifests/registry.ollama.ai/someone/tool/latest"), manifest);
        Files.createDirectories(root.resolve("manifests/hf.co/org/repo"));
        Files.writeString(root.resolve("manifests/hf.co/org/repo/Q4_K_M"), manifest);
        Files.createDirectories(root.resolve("manifests/registry.ollama.ai/library/gone"));
        Files.writeString(
                root.resolve("manifests/registry.ollama.ai/library/gone/1b"), manifest.replace(hex, "b".repeat(64)));
        // a digest that is not 64 hex digits is not a blob name: nothing outside blobs/ is named
        Files.createDirectories(root.resolve("manifests/registry.ollama.ai/library/evil"));
        Files.writeString(
                root.resolve("manifests/registry.ollama.ai/library/evil/x"),
                manifest.replace("sha256:" + hex, "sha256:../../../etc/passwd"));
        var found = byId(new ModelSource.Ollama(root).scan());
        assertEquals(
                java.util.Set.of("qwen2.5-coder:7b", "someone/tool:latest", "hf.co/org/repo:Q4_K_M", "gone:1b"),
                found.keySet());
        assertEquals(blob, found.get("qwen2.5-coder:7b").path());
        assertTrue(found.get("gone:1b").problem().contains("is missing"));
    }

    @Test
    void lmStudioAndTheHubCacheGiveOrgRepoFile(@TempDir Path home) throws Exception {
        touch(home.resolve("lms/pub/Repo-GGUF/model-Q8_0.gguf"));
        touch(home.resolve("lms/pub/Repo-GGUF/mmproj-model-f16.gguf"));
        var lms = byId(new ModelSource.LmStudio(List.of(home.resolve("lms"), home.resolve("old"))).scan());
        assertEquals(java.util.Set.of("pub/Repo-GGUF/model-Q8_0"), lms.keySet());

        Path repo = home.resolve("hub/models--org--repo");
        Path blob = touch(repo.resolve("blobs/" + "c".repeat(64)));
        Files.createDirectories(repo.resolve("snapshots/rev1"));
        Files.createSymbolicLink(
                repo.resolve("snapshots/rev1/tiny-Q4_K_M.gguf"), Path.of("../../blobs/" + "c".repeat(64)));
        Files.createDirectories(repo.resolve("snapshots/rev0"));
        touch(repo.resolve("snapshots/rev0/old-Q4_K_M.gguf"));
        Files.createDirectories(repo.resolve("refs"));
        Files.writeString(repo.resolve("refs/main"), "rev1");
        // an incomplete download lies in blobs/ only: it is never a model
        touch(repo.resolve("blobs/" + "d".repeat(64) + ".incomplete"));
        var hf = byId(new ModelSource.HfCache(home.resolve("hub")).scan());
        assertEquals(java.util.Set.of("org/repo/tiny-Q4_K_M"), hf.keySet());
        assertEquals(blob.toRealPath(), hf.get("org/repo/tiny-Q4_K_M").path().toRealPath());
    }

    /** A vision model's projector is found with it where users have it, and is never a model of its own. */
    @Test
    void aProjectorIsFoundBesideItsModelInEverySource(@TempDir Path home) throws Exception {
        // a models folder: the projector beside the model, not beside the one in another folder
        Path folder = home.resolve("models");
        touch(folder.resolve("gemma-3-4b-it-Q4_K_M.gguf"));
        Path projector = touch(folder.resolve("mmproj-gemma-3-4b-it-f16.gguf"));
        touch(folder.resolve("text/plain-model.gguf"));
        var found = byId(new ModelSource.Folder(folder).scan());
        assertEquals(Set.of("gemma-3-4b-it-Q4_K_M", "plain-model"), found.keySet());
        assertEquals(Optional.of(projector), found.get("gemma-3-4b-it-Q4_K_M").projector());
        assertEquals(Optional.empty(), found.get("plain-model").projector());

        // the HF cache: the snapshot's projector
        Path snap = home.resolve("hub/models--ggml-org--gemma-3-4b-it-GGUF/snapshots/abc");
        touch(snap.resolve("gemma-3-4b-it-Q4_K_M.gguf"));
        Path hfProjector = touch(snap.resolve("mmproj-model-f16.gguf"));
        var hf = byId(new ModelSource.HfCache(home.resolve("hub")).scan());
        assertEquals(Set.of("ggml-org/gemma-3-4b-it-GGUF/gemma-3-4b-it-Q4_K_M"), hf.keySet());
        assertEquals(Optional.of(hfProjector), hf.values().iterator().next().projector());

        // LM Studio: the repo folder's projector
        Path repo = home.resolve("lmstudio/lmstudio-community/gemma-3-4b-it-GGUF");
        touch(repo.resolve("gemma-3-4b-it-Q4_K_M.gguf"));
        Path lmProjector = touch(repo.resolve("mmproj-model-f16.gguf"));
        var lm = new ModelSource.LmStudio(List.of(home.resolve("lmstudio"))).scan();
        assertEquals(1, lm.size());
        assertEquals(Optional.of(lmProjector), lm.getFirst().projector());

        // Ollama: the manifest's projector layer, when its blob is there
        Path ollama = home.resolve("ollama");
        String model = "a".repeat(64);
        String mmproj = "b".repeat(64);
        touch(ollama.resolve("blobs/sha256-" + model));
        Path blob = touch(ollama.resolve("blobs/sha256-" + mmproj));
        touch(ollama.resolve("manifests/registry.ollama.ai/library/gemma3/4b"));
        Files.writeString(
                ollama.resolve("manifests/registry.ollama.ai/library/gemma3/4b"), """
                {"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:%s","size":1},
                 {"mediaType":"application/vnd.ollama.image.projector","digest":"sha256:%s","size":1}]}
                """.formatted(model, mmproj));
        var o = new ModelSource.Ollama(ollama).scan();
        assertEquals(1, o.size());
        assertEquals("gemma3:4b", o.getFirst().id());
        assertEquals(Optional.of(blob), o.getFirst().projector());
    }
}
