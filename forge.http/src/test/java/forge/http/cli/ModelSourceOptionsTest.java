package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import forge.runtime.catalog.ModelSource;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Every {@code ~} of the sources is {@code HOME} of the environment, never Java's {@code user.home}. */
class ModelSourceOptionsTest {

    private static ModelSourceOptions options(Map<String, String> env, String... args) {
        ModelSourceOptions o = new ModelSourceOptions();
        new CommandLine(new Object() {
                    @CommandLine.Mixin
                    ModelSourceOptions mixin = o;
                })
                .parseArgs(args);
        o.environment = env;
        return o;
    }

    @Test
    void everySourceIsUnderTheEnvironmentsHome() {
        String saved = System.getProperty("forge.user.home");
        System.clearProperty("forge.user.home");
        try {
            Path home = Path.of("/tmp/somewhere-else");
            ModelSourceOptions o = options(Map.of("HOME", home.toString()));
            assertEquals(home.resolve(".forge"), o.forgeHome());
            assertEquals(
                    List.of(
                            new ModelSource.Folder(home.resolve(".forge/models")),
                            new ModelSource.Ollama(home.resolve(".ollama/models")),
                            new ModelSource.LmStudio(
                                    List.of(home.resolve(".lmstudio/models"), home.resolve(".cache/lm-studio/models"))),
                            new ModelSource.HfCache(home.resolve(".cache/huggingface/hub"))),
                    o.sources(true));
            assertEquals(home.resolve(".forge/models"), o.defaultFolder());
        } finally {
            if (saved != null) {
                System.setProperty("forge.user.home", saved);
            }
        }
    }

    @Test
    void theToolsOwnVariablesWinAndEachSourceCanBeTurnedOff() {
        Map<String, String> env = Map.of("HOME", "/h", "OLLAMA_MODELS", "~/ollama-store", "HF_HOME", "/hf");
        ModelSourceOptions o = options(env, "--models-dir", "~/mine", "--no-lmstudio");
        assertEquals(
                List.of(
                        new ModelSource.Folder(Path.of("/h/mine")),
                        new ModelSource.Ollama(Path.of("/h/ollama-store")),
                        new ModelSource.HfCache(Path.of("/hf/hub"))),
                o.sources(true));
        assertEquals(
                Path.of("/hub-cache"),
                options(Map.of("HOME", "/h", "HF_HUB_CACHE", "/hub-cache")).hfHub());
        assertEquals(
                List.of(),
                options(env, "--no-models-dir", "--no-ollama", "--no-lmstudio", "--no-hf-cache")
                        .sources(true));
        // with -m, only the folders named
        assertEquals(List.of(new ModelSource.Folder(Path.of("/h/mine"))), o.sources(false));
    }
}
