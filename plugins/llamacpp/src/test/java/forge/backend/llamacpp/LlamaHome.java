package forge.backend.llamacpp;

import forge.api.backend.BackendContext;
import forge.api.backend.LoadProgress;
import forge.api.backend.LoadedModel;
import forge.api.backend.ModelLoadParams;
import forge.lib.gguf.synth.SynthSpec;
import forge.lib.gguf.synth.SyntheticModels;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The one place tests find the natives: {@code forge.llama.home}, which the parent pom passes to
 * every Surefire run ({@code natives.sh} fills it during the build). Also the shared backend and
 * the synthetic models, written once per test run.
 */
public final class LlamaHome {
    private static LlamaCppBackend backend;
    private static Path models;
    private static final Map<String, Path> SYNTH = new HashMap<>();

    private LlamaHome() {}

    /** {@code <llama.home>}: {@code lib/} and {@code src/} below it. */
    public static Path home() {
        String home = System.getProperty("forge.llama.home");
        if (home == null || home.isBlank()) {
            throw new IllegalStateException(
                    "system property forge.llama.home is not set (the parent pom sets it for Surefire)");
        }
        return Path.of(home).toAbsolutePath();
    }

    public static Path lib() {
        return home().resolve("lib");
    }

    /** The llama.cpp source tree: headers, vocab-only models, test vectors. */
    public static Path src() {
        return home().resolve("src");
    }

    /** {@code src/models/ggml-vocab-NAME.gguf}. */
    public static Path vocab(String name) {
        return src().resolve("models").resolve("ggml-vocab-" + name + ".gguf");
    }

    public static BackendContext context() {
        return new BackendContext(
                Path.of("target").toAbsolutePath(), Map.of(LlamaCppProvider.LLAMA_HOME, home().toString()));
    }

    /** The backend all tests share (the libraries are process-wide anyway). */
    public static synchronized LlamaCppBackend backend() {
        if (backend == null) {
            backend = (LlamaCppBackend) new LlamaCppProvider().create(context());
        }
        return backend;
    }

    /** A tiny synthetic model of {@code family} ({@link SynthSpec#tiny}), written once per run. */
    public static synchronized Path tinyModel(String family) {
        return SYNTH.computeIfAbsent(family, f -> {
            Path out = models().resolve("tiny-" + f + ".gguf");
            SyntheticModels.write(SynthSpec.tiny(f), out);
            return out;
        });
    }

    /** The tiny model of {@code family}, loaded by the shared backend; the caller closes it. */
    public static LoadedModel loadTiny(String family) {
        return backend().load(ModelLoadParams.of(tinyModel(family)), LoadProgress.NONE);
    }

    /** One user turn of the tiny qwen model's chat format and the assistant's opening: a prompt to decode and sample after. */
    public static int[] qwenChatPrompt(LoadedModel model) {
        return model.vocabulary()
                .tokenize(
                        "<|im_start|>user\nHello there, how are you?<|im_end|>\n<|im_start|>assistant\n", false, true);
    }

    /** A scratch folder for model files, under target/. */
    public static synchronized Path models() {
        if (models == null) {
            try {
                models =
                        Files.createDirectories(Path.of("target", "test-models").toAbsolutePath());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return models;
    }
}
