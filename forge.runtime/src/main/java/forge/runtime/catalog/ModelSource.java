package forge.runtime.catalog;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Where the user's models are, read in place: each source lists its GGUF files under ids that are
 * predictable from its own layout (the package documentation has the rules).
 *
 * <p>Scanning reads folder listings and small manifest files only, never a GGUF: the catalog
 * reads each found file's header when it registers it.
 */
public sealed interface ModelSource {

    /** The source's name, as {@code /models} shows it: {@code file}, {@code folder}, {@code ollama}, {@code lmstudio}, {@code hf}. */
    String name();

    /** The models found now; a source whose folder is missing finds none. */
    List<Found> scan();

    /**
     * One model a source found.
     *
     * @param id       its canonical id
     * @param source   the source's name
     * @param path     the file to load (the first part of a split model)
     * @param parts    every file of the model (one unless split)
     * @param problem  why it cannot be served as found (a missing split part); empty when none
     * @param projector the multimodal projector found with it ({@code mmproj*.gguf} in the same
     *                  folder, Ollama's projector layer), if any: a companion, never a model of its own
     */
    record Found(String id, String source, Path path, List<Path> parts, String problem, Optional<Path> projector) {
        public Found {
            Objects.requireNonNull(id);
            Objects.requireNonNull(source);
            Objects.requireNonNull(path);
            parts = List.copyOf(parts);
            Objects.requireNonNull(problem);
            Objects.requireNonNull(projector);
        }

        /** A model found without a projector. */
        public Found(String id, String source, Path path, List<Path> parts, String problem) {
            this(id, source, path, parts, problem, Optional.empty());
        }

        /** The bytes of all its files. */
        public long size() {
            long n = 0;
            for (Path p : parts) {
                try {
                    n += Files.size(p);
                } catch (IOException e) {
                    // a part that vanished counts for nothing; the load says why
                }
            }
            return n;
        }
    }

    /** Files given one by one ({@code -m}): the id is the file stem. */
    record Given(List<Path> files) implements ModelSource {
        public Given {
            files = List.copyOf(files);
        }

        @Override
        public String name() {
            return "file";
        }

        @Override
        public List<Found> scan() {
            List<Found> found = new ArrayList<>();
            for (Path f : files) {
                Path p = f.toAbsolutePath().normalize();
                found.add(group(List.of(p), name(), stem -> stem).stream()
                        .findFirst()
                        .orElse(new Found(stemOf(p), name(), p, List.of(p), "")));
            }
            return found;
        }
    }

    /** A folder of GGUF files ({@code --models-dir}, {@code ~/.forge/models}), searched below: the id is the file stem. */
    record Folder(Path dir) implements ModelSource {
        @Override
        public String name() {
            return "folder";
        }

        @Override
        public List<Found> scan() {
            return group(ggufsBelow(dir, 4), name(), stem -> stem);
        }
    }

    /**
     * Ollama's store: {@code manifests/<registry>/<namespace>/<model>/<tag>} (JSON naming layers by
     * digest) and {@code blobs/sha256-<hex>}. The model layer is what is served (a vision model's
     * projector layer, its mmproj GGUF, is found with it, never served on its own): its GGUF carries the
     * chat template ForgeLM renders; the template layer beside it is a Go template for Ollama's
     * own renderer, and the params layer holds Ollama's sampling defaults.
     */
    record Ollama(Path root) implements ModelSource {
        static final String MODEL_LAYER = "application/vnd.ollama.image.model";
        /** The layer of a vision model's projector (llama.cpp's mmproj GGUF). */
        static final String PROJECTOR_LAYER = "application/vnd.ollama.image.projector";

        static final String DEFAULT_REGISTRY = "registry.ollama.ai";
        private static final Pattern LAYER = Pattern.compile(
                "\\{[^{}]*\"mediaType\"\\s*:\\s*\"([^\"]+)\"[^{}]*\"digest\"\\s*:\\s*\"(sha256[:-][0-9a-f]{64})\"[^{}]*}");

        @Override
        public String name() {
            return "ollama";
        }

        @Override
        public List<Found> scan() {
            Path manifests = root.resolve("manifests");
            List<Found> found = new ArrayList<>();
            if (!Files.isDirectory(manifests)) {
                return found;
            }
            try (Stream<Path> walk = Files.walk(manifests, 4)) {
                for (Path m : walk.filter(Files::isRegularFile).sorted().toList()) {
                    Path rel = manifests.relativize(m);
                    if (rel.getNameCount() != 4) {
                        continue;
                    }
                    try {
                        manifest(rel, m).ifPresent(found::add);
                    } catch (IOException | RuntimeException e) {
                        Sources.LOG.warn("ollama: skipping manifest {}: {}", m, e.toString());
                    }
                }
            } catch (IOException e) {
                Sources.LOG.warn("ollama: cannot list {}: {}", manifests, e.toString());
            }
            return found;
        }

        private Optional<Found> manifest(Path rel, Path file) throws IOException {
            if (Files.size(file) > 1 << 20) {
                return Optional.empty(); // manifests are a few hundred bytes: this is not one
            }
            String json = Files.readString(file);
            String registry = rel.getName(0).toString();
            String namespace = rel.getName(1).toString();
            String id = rel.getName(2) + ":" + rel.getName(3);
            if (!namespace.equals("library") || !registry.equals(DEFAULT_REGISTRY)) {
                id = namespace + "/" + id;
            }
            if (!registry.equals(DEFAULT_REGISTRY)) {
                id = registry + "/" + id;
            }
            Path model = null;
            Path projector = null;
            Matcher layer = LAYER.matcher(json);
            while (layer.find()) {
                // the pattern admits 64 hex digits only: a blob path cannot leave blobs/
                Path blob = root.resolve("blobs").resolve(layer.group(2).replace(':', '-'));
                if (layer.group(1).equals(MODEL_LAYER) && model == null) {
                    model = blob;
                } else if (layer.group(1).equals(PROJECTOR_LAYER) && projector == null && Files.isRegularFile(blob)) {
                    projector = blob;
                }
            }
            if (model == null) {
                return Optional.empty(); // an embedding-less or adapter-only manifest: nothing to serve
            }
            String problem = Files.isRegularFile(model) ? "" : "its model blob " + model.getFileName() + " is missing";
            return Optional.of(new Found(id, name(), model, List.of(model), problem, Optional.ofNullable(projector)));
        }
    }

    /**
     * LM Studio's folders ({@code ~/.lmstudio/models}, the older {@code ~/.cache/lm-studio/models}):
     * {@code <publisher>/<repo>/*.gguf}; the id is {@code publisher/repo/file-stem}.
     */
    record LmStudio(List<Path> roots) implements ModelSource {
        public LmStudio {
            roots = List.copyOf(roots);
        }

        @Override
        public String name() {
            return "lmstudio";
        }

        @Override
        public List<Found> scan() {
            List<Found> found = new ArrayList<>();
            for (Path root : roots) {
                for (Path repo : children(root, 2)) {
                    String prefix = root.relativize(repo).toString().replace('\\', '/') + "/";
                    found.addAll(group(ggufsBelow(repo, 2), name(), stem -> prefix + stem));
                }
            }
            return found;
        }
    }

    /**
     * The Hugging Face hub cache: {@code models--org--repo/snapshots/<revision>/<file>} (symlinks
     * into {@code blobs/}); the revision {@code refs/main} names, else the newest snapshot. The id
     * is {@code org/repo/file-stem}.
     */
    record HfCache(Path hub) implements ModelSource {
        @Override
        public String name() {
            return "hf";
        }

        @Override
        public List<Found> scan() {
            List<Found> found = new ArrayList<>();
            for (Path repo : children(hub, 1)) {
                String folder = repo.getFileName().toString();
                if (!folder.startsWith("models--")) {
                    continue;
                }
                String[] parts = folder.substring("models--".length()).split("--", 2);
                if (parts.length != 2 || parts[0].isEmpty() || parts[1].isEmpty()) {
                    continue;
                }
                String prefix = parts[0] + "/" + parts[1] + "/";
                snapshot(repo)
                        .ifPresent(snap -> found.addAll(group(ggufsBelow(snap, 3), name(), stem -> prefix + stem)));
            }
            return found;
        }

        /** The snapshot of {@code refs/main}, else the most recently changed one. */
        static Optional<Path> snapshot(Path repo) {
            Path snapshots = repo.resolve("snapshots");
            try {
                Path main = repo.resolve("refs").resolve("main");
                if (Files.isRegularFile(main)) {
                    String rev = Files.readString(main).strip();
                    if (rev.matches("[0-9a-zA-Z._-]{1,100}") && Files.isDirectory(snapshots.resolve(rev))) {
                        return Optional.of(snapshots.resolve(rev));
                    }
                }
            } catch (IOException e) {
                Sources.LOG.debug("hf: cannot read {}/refs/main: {}", repo, e.toString());
            }
            return children(snapshots, 1).stream().max(Comparator.comparing(HfCache::modified));
        }

        private static long modified(Path p) {
            try {
                return Files.getLastModifiedTime(p).toMillis();
            } catch (IOException e) {
                return 0;
            }
        }
    }

    /** {@code name-00001-of-00003.gguf}: a part of a split model, as {@code llama-gguf-split} names them. */
    Pattern SPLIT = Pattern.compile("(.+)-(\\d{5})-of-(\\d{5})\\.gguf", Pattern.CASE_INSENSITIVE);

    /** The file's name without {@code .gguf}. */
    static String stemOf(Path file) {
        String name = file.getFileName().toString();
        return name.toLowerCase(Locale.ROOT).endsWith(".gguf") ? name.substring(0, name.length() - 5) : name;
    }

    /** A multimodal projector (by the name every converter gives it): a model's companion, not a model. */
    static boolean isProjector(Path file) {
        return file.getFileName().toString().toLowerCase(Locale.ROOT).contains("mmproj");
    }

    /**
     * {@code files} as models: projectors dropped, the parts of a split model grouped under the
     * name before {@code -00001-of-0000N}, ids from {@code idOf} applied to the stem (the path
     * below the scanned folder's model folder is not part of the id).
     */
    static List<Found> group(List<Path> files, String source, UnaryOperator<String> idOf) {
        Map<String, Found> single = new LinkedHashMap<>();
        Map<Path, TreeMap<Integer, Path>> splits = new LinkedHashMap<>();
        Map<Path, Integer> counts = new LinkedHashMap<>();
        // the projector of a folder: the first mmproj file in it (sorted), as a repo ships one
        Map<Path, Path> projectors = new LinkedHashMap<>();
        for (Path f : files) {
            if (isProjector(f) && f.getParent() != null) {
                projectors.putIfAbsent(f.getParent(), f);
            }
        }
        for (Path f : files) {
            if (isProjector(f)) {
                continue;
            }
            Matcher m = SPLIT.matcher(f.getFileName().toString());
            if (m.matches()) {
                Path base = f.resolveSibling(m.group(1));
                splits.computeIfAbsent(base, b -> new TreeMap<>()).put(Integer.parseInt(m.group(2)), f);
                counts.merge(base, Integer.parseInt(m.group(3)), Math::max);
            } else {
                single.putIfAbsent(
                        f.toString(),
                        new Found(
                                idOf.apply(stemOf(f)),
                                source,
                                f,
                                List.of(f),
                                "",
                                Optional.ofNullable(projectors.get(f.getParent()))));
            }
        }
        List<Found> found = new ArrayList<>(single.values());
        splits.forEach((base, parts) -> {
            int count = counts.get(base);
            List<Integer> missing = new ArrayList<>();
            for (int i = 1; i <= count; i++) {
                if (!parts.containsKey(i)) {
                    missing.add(i);
                }
            }
            Path first = parts.firstEntry().getValue();
            String problem = missing.isEmpty()
                    ? ""
                    : "split model: part" + (missing.size() > 1 ? "s " : " ")
                            + missing.stream()
                                    .map(String::valueOf)
                                    .reduce((a, b) -> a + ", " + b)
                                    .orElseThrow() + " of " + count + " missing";
            found.add(new Found(
                    idOf.apply(base.getFileName().toString()),
                    source,
                    first,
                    List.copyOf(parts.values()),
                    problem,
                    Optional.ofNullable(projectors.get(first.getParent()))));
        });
        return found;
    }

    /** The {@code .gguf} files below {@code dir} (symlinks followed, at most {@code depth} deep), sorted. */
    static List<Path> ggufsBelow(Path dir, int depth) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(dir, depth, FileVisitOption.FOLLOW_LINKS)) {
            return walk.filter(p ->
                            p.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".gguf"))
                    .filter(Files::isRegularFile)
                    .map(p -> p.toAbsolutePath().normalize())
                    .sorted()
                    .toList();
        } catch (IOException | UncheckedIOException e) {
            Sources.LOG.warn("cannot list {}: {}", dir, e.toString());
            return List.of();
        }
    }

    /** The folders exactly {@code depth} below {@code dir}, sorted. */
    static List<Path> children(Path dir, int depth) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(dir, depth, FileVisitOption.FOLLOW_LINKS)) {
            return walk.filter(p -> dir.relativize(p).getNameCount() == depth && !dir.equals(p))
                    .filter(Files::isDirectory)
                    .sorted()
                    .toList();
        } catch (IOException | UncheckedIOException e) {
            Sources.LOG.warn("cannot list {}: {}", dir, e.toString());
            return List.of();
        }
    }
}
