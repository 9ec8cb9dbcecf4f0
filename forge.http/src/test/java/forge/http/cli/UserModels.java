package forge.http.cli;

import forge.lib.gguf.GgufValue;
import forge.lib.gguf.synth.SynthSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;

/**
 * A temporary {@code HOME} laid out as a user's machine with models in every tool's store, made
 * of synthetic GGUFs: {@code ~/.forge/models}, Ollama's manifests and blobs, LM Studio's
 * publisher/repo folders and the Hugging Face hub cache (blobs, snapshot symlinks, refs).
 */
final class UserModels {

    private UserModels() {}

    /** A tiny model of {@code family}, written once per JVM by the test fixture. */
    static Path tiny(String name) {
        return TestServer.model(name, SynthSpec.tiny("qwen").withName(name));
    }

    /** {@code HOME} for {@code home} and nothing else from the environment. */
    static Map<String, String> environment(Path home) {
        return Map.of("HOME", home.toString());
    }

    /** {@code ~/.forge/models/NAME}: a copy of {@code model}. */
    static Path folder(Path home, String file, Path model) throws IOException {
        Path dir = Files.createDirectories(home.resolve(".forge/models"));
        return Files.copy(model, dir.resolve(file));
    }

    /** Ollama's store: {@code manifests/registry.ollama.ai/library/NAME/TAG} naming the model blob (and a template layer). */
    static void ollama(Path home, String name, String tag, Path model) throws IOException {
        Path root = home.resolve(".ollama/models");
        String digest = sha256(model);
        Path blobs = Files.createDirectories(root.resolve("blobs"));
        Files.copy(model, blobs.resolve("sha256-" + digest));
        String template = "{{ .Prompt }}";
        String templateDigest = sha256(template.getBytes());
        Files.writeString(blobs.resolve("sha256-" + templateDigest), template);
        Path manifest = root.resolve("manifests/registry.ollama.ai/library")
                .resolve(name)
                .resolve(tag);
        Files.createDirectories(manifest.getParent());
        Files.writeString(
                manifest, """
                {"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json",
                 "config":{"mediaType":"application/vnd.docker.container.image.v1+json","digest":"sha256:%s","size":1},
                 "layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:%s","size":%d},
                           {"mediaType":"application/vnd.ollama.image.template","digest":"sha256:%s","size":%d}]}
                """.formatted("0".repeat(64), digest, Files.size(model), templateDigest, template.length()));
    }

    /** LM Studio's {@code ~/.lmstudio/models/PUBLISHER/REPO/FILE}. */
    static void lmStudio(Path home, String publisher, String repo, String file, Path model) throws IOException {
        Path dir = Files.createDirectories(
                home.resolve(".lmstudio/models").resolve(publisher).resolve(repo));
        Files.copy(model, dir.resolve(file));
    }

    /** The hub cache: {@code models--ORG--REPO/blobs/<sha256>}, {@code snapshots/<rev>/FILE} a relative symlink, {@code refs/main}. */
    static void hfCache(Path home, String org, String repo, String file, Path model) throws IOException {
        Path dir = home.resolve(".cache/huggingface/hub").resolve("models--" + org + "--" + repo);
        String sha = sha256(model);
        String rev = "0123456789abcdef0123456789abcdef01234567";
        Files.createDirectories(dir.resolve("blobs"));
        Files.copy(model, dir.resolve("blobs").resolve(sha));
        Path snap = Files.createDirectories(dir.resolve("snapshots").resolve(rev));
        Files.createSymbolicLink(snap.resolve(file), Path.of("../../blobs").resolve(sha));
        Files.createDirectories(dir.resolve("refs"));
        Files.writeString(dir.resolve("refs/main"), rev);
    }

    /** A model whose own chat template does not parse. */
    static Path badTemplate(String name) {
        return TestServer.model(
                name,
                SynthSpec.tiny("llama").withName(name),
                gguf -> gguf.put(
                        "tokenizer.chat_template", GgufValue.string("{% for m in messages %}{{ m.content }}")));
    }

    static String sha256(Path file) {
        try {
            return sha256(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
