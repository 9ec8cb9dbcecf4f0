package forge.http.cli;

import forge.lib.gguf.GgufValue;
import forge.lib.gguf.GgufWriter;
import forge.lib.gguf.synth.SynthSpec;
import forge.lib.gguf.synth.SyntheticModels;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import picocli.CommandLine;

/**
 * The end-to-end tests' fixture: a real {@code forge serve} (CLI parsing, plugins, llama.cpp,
 * Jetty) on a free loopback port, started from the same arguments a user would type, with an
 * {@link Http} client aimed at it; and the synthetic models it serves.
 *
 * <p>A test class holds one server for all its tests and lets JUnit close it:
 * {@snippet :
 * @AutoClose
 * static final TestServer server = TestServer.serve(TestServer.model("tiny", SynthSpec.tiny("qwen")), "-c 512 -np 1");
 *
 * static final Http http = server.http();
 * }
 *
 * <p>Models, the user home and the default plugins folder live in one temporary folder per test
 * JVM, deleted when it exits. A model made from a {@link SynthSpec} alone is written once per
 * JVM and shared by every class that asks for the same name and spec: servers only read it.
 */
public final class TestServer implements AutoCloseable {

    private static final Path ROOT = temporaryRoot();
    private static final Map<List<Object>, Path> MODELS = new ConcurrentHashMap<>();
    private static final AtomicInteger FOLDERS = new AtomicInteger();

    private final ServeCommand.Running running;
    private final Http http;

    private TestServer(ServeCommand.Running running) {
        this.running = running;
        this.http = new Http("http://127.0.0.1:" + running.port());
    }

    /**
     * Parses {@code args} as {@code forge serve} does and starts the server; returns once it
     * listens and its models are loaded. The fixture adds {@code --port 0}, and a plugins folder
     * that does not exist unless {@code args} name one; {@code HOME} (and so {@code ~/.forge})
     * is an empty folder, so nothing from the machine's models leaks in.
     *
     * @throws forge.api.ForgeException what {@link ServeCommand#start()} throws for a server that cannot start
     */
    public static TestServer start(String... args) {
        return start(Map.of("HOME", ROOT.resolve("home").toString()), args);
    }

    /**
     * Serves {@code model} ({@code -m}) with {@code flags}, split at spaces ({@code "--alias demo -c
     * 2048 -np 2"}), then {@code more} as they are (a path, a value with spaces): as
     * {@link #start(String...)}.
     */
    public static TestServer serve(Path model, String flags, String... more) {
        List<String> all = new ArrayList<>(List.of("-m", model.toString()));
        all.addAll(List.of(flags.strip().split("\\s+")));
        all.addAll(List.of(more));
        return start(all.toArray(String[]::new));
    }

    /**
     * {@link #start(Map, String...)} with {@code flags} split at spaces, then {@code more} as they
     * are: as {@link #serve(Path, String, String...)} does, for a server that finds its models in
     * {@code environment} (a {@code HOME} with a model store, a hub endpoint).
     */
    public static TestServer serve(Map<String, String> environment, String flags, String... more) {
        List<String> all = new ArrayList<>(List.of(flags.strip().split("\\s+")));
        all.addAll(List.of(more));
        return start(environment, all.toArray(String[]::new));
    }

    /**
     * {@link #start(String...)} in another environment: {@code HOME} and the variables the model
     * sources read ({@code OLLAMA_MODELS}, {@code HF_HUB_CACHE}, ...), as a user's shell would
     * give them. The plain {@code start} gives an empty {@code HOME}, so nothing from the
     * machine's Ollama, LM Studio or Hugging Face cache leaks in.
     */
    public static TestServer start(Map<String, String> environment, String... args) {
        System.setProperty(
                "forge.user.home",
                Path.of(environment.get("HOME")).resolve(".forge").toString());
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--port", "0"));
        if (!all.contains("--plugins-dir")) {
            all.addAll(List.of("--plugins-dir", ROOT.resolve("no-plugins").toString()));
        }
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).parseArgs(all.toArray(String[]::new));
        serve.sources.environment = environment;
        return new TestServer(serve.start());
    }

    /**
     * {@code NAME.gguf} made from {@code spec}, written the first time this JVM asks for that name
     * and spec. The file name is the model's id in the server, so tests choose it.
     */
    public static Path model(String name, SynthSpec spec) {
        return MODELS.computeIfAbsent(List.of(name, spec), key -> {
            Path file = newFolder().resolve(name + ".gguf");
            SyntheticModels.write(spec, file);
            return file;
        });
    }

    /**
     * {@code NAME.gguf} made from {@code spec} with {@code edit} applied to its GGUF writer (extra
     * or replaced metadata). Written on every call, to a folder of its own: an edit cannot be
     * compared with another, so such a model is never shared.
     */
    public static Path model(String name, SynthSpec spec, Consumer<GgufWriter> edit) {
        Path file = newFolder().resolve(name + ".gguf");
        GgufWriter writer = SyntheticModels.writer(spec);
        edit.accept(writer);
        writer.write(file);
        return file;
    }

    /**
     * {@code NAME.gguf}: a tiny llama-architecture model named {@code name} (like no family, unless
     * the name says otherwise) with {@code chatTemplate} as its {@code tokenizer.chat_template}.
     */
    public static Path modelWithTemplate(String name, String chatTemplate) {
        return model(
                name,
                SynthSpec.tiny("llama").withName(name),
                gguf -> gguf.put("tokenizer.chat_template", GgufValue.string(chatTemplate)));
    }

    /** The started server: its catalog and engines, for tests that reach behind the HTTP API. */
    public ServeCommand.Running running() {
        return running;
    }

    /** The server's loopback port. */
    public int port() {
        return running.port();
    }

    /** A client for this server. */
    public Http http() {
        return http;
    }

    @Override
    public void close() {
        running.close();
    }

    private static Path newFolder() {
        try {
            return Files.createDirectories(ROOT.resolve("models").resolve(String.valueOf(FOLDERS.incrementAndGet())));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path temporaryRoot() {
        try {
            Path root = Files.createTempDirectory("forge-test-");
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(() -> delete(root)));
            return root;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void delete(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // The JVM is exiting: a file left in the temporary folder is all that can go wrong.
            System.err.println("could not delete " + root + ": " + e);
        }
    }
}
