package forge.http.hub;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import forge.api.ForgeException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pulls GGUF files of a Hugging Face repository into the hub cache (the package documentation
 * has the steps). Thread-safe for pulls of different files; two pulls of one file at once are
 * not coordinated.
 */
public final class HubPull {

    private static final Logger LOG = LoggerFactory.getLogger(HubPull.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The public hub, for users; tests always give a loopback endpoint. */
    public static final String DEFAULT_ENDPOINT = "https://huggingface.co";
    /** The quant taken when a pull names none, as llama.cpp's {@code -hf} does. */
    static final String DEFAULT_QUANT = "Q4_K_M";

    private static final Pattern SPLIT = Pattern.compile("(.+)-(\\d{5})-of-(\\d{5})\\.gguf", Pattern.CASE_INSENSITIVE);
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    private static final Pattern REPO =
            Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}");
    private static final int TRIES = 3;

    private final URI endpoint;
    private final String token;
    private final Path hub;
    /** Made on the first pull: building one sets up TLS and parses the trusted certificates, ~0.1 s of a start. */
    private volatile HttpClient client;

    /**
     * @param endpoint the hub ({@link #DEFAULT_ENDPOINT}, {@code HF_ENDPOINT}, {@code --hf-endpoint})
     * @param token    {@code HF_TOKEN}; null or blank for none
     * @param hub      the hub cache folder ({@code ~/.cache/huggingface/hub})
     */
    public HubPull(URI endpoint, String token, Path hub) {
        this.endpoint = URI.create(endpoint.toString().replaceAll("/+$", ""));
        this.token = token == null || token.isBlank() ? null : token.strip();
        this.hub = Objects.requireNonNull(hub);
    }

    private HttpClient client() {
        HttpClient c = client;
        if (c == null) {
            synchronized (this) {
                c = client;
                if (c == null) {
                    // Redirects are followed by hand: the token must not travel to the blob host.
                    client = c = HttpClient.newBuilder()
                            .followRedirects(HttpClient.Redirect.NEVER)
                            .connectTimeout(Duration.ofSeconds(30))
                            .build();
                }
            }
        }
        return c;
    }

    /**
     * What to pull: {@code org/repo}, {@code org/repo:QUANT} or {@code org/repo/path/file.gguf}
     * ({@code hf.co/} and {@code huggingface.co/} prefixes accepted, as Ollama writes them).
     *
     * @param repo  {@code org/repo}
     * @param quant the quant tag; empty for a named file or the default
     * @param file  the file's path in the repository; empty to choose by quant
     */
    public record Target(String repo, String quant, String file) {
        public Target {
            if (!REPO.matcher(repo).matches()) {
                throw new ForgeException("not a Hugging Face repository: '" + repo + "' (expected org/repo)");
            }
            if (file.contains("..") || file.startsWith("/") || file.contains("\\")) {
                throw new ForgeException("not a file of the repository: '" + file + "'");
            }
        }

        public static Target parse(String text) {
            String t = text.strip().replaceFirst("^(https?://)?(hf\\.co|huggingface\\.co)/", "");
            String[] parts = t.split("/", 3);
            if (parts.length == 3 && parts[2].toLowerCase(Locale.ROOT).endsWith(".gguf")) {
                return new Target(parts[0] + "/" + parts[1], "", parts[2]);
            }
            int colon = t.lastIndexOf(':');
            if (colon > 0) {
                return new Target(t.substring(0, colon), t.substring(colon + 1).strip(), "");
            }
            return new Target(t, "", "");
        }

        /** The quant asked for, or the default. */
        String quantOrDefault() {
            return quant.isEmpty() ? DEFAULT_QUANT : quant;
        }
    }

    /**
     * One progress line, as Ollama's {@code /api/pull} streams them: a status, and for a file
     * being fetched its digest, size and bytes so far.
     */
    public record Progress(String status, String digest, long total, long completed) {
        static Progress of(String status) {
            return new Progress(status, "", 0, 0);
        }
    }

    /**
     * What a pull wrote.
     *
     * @param repo   {@code org/repo}
     * @param commit the revision's commit
     * @param files  the snapshot paths of the model's files (the first is the one to load)
     * @param id     the model's id in the catalog ({@code org/repo/file-stem})
     * @param projector the snapshot path of the multimodal projector pulled with it, if any
     */
    public record Result(String repo, String commit, List<Path> files, String id, Optional<Path> projector) {}

    /** The hub cache it writes into. */
    public Path hub() {
        return hub;
    }

    /** The repository's folder in the cache: {@code models--org--repo}. */
    public Path repoDir(String repo) {
        return hub.resolve("models--" + repo.replace("/", "--"));
    }

    /**
     * Pulls {@code target}: chooses its files, fetches each (resuming what an earlier pull left),
     * checks it against the hub's sha256, and links it into the snapshot.
     *
     * @throws ForgeException naming what failed; nothing partial is left where the catalog reads
     */
    public Result pull(Target target, Consumer<Progress> progress) {
        return pull(target, true, progress);
    }

    /**
     * Pulls {@code target} as {@link #pull(Target, Consumer)} does; with {@code projector}, also
     * the repository's multimodal projector that goes with the model ({@link #bestProjector}, as
     * llama-server's {@code --mmproj-auto} picks it), into the same snapshot, where the catalog
     * finds it beside the model.
     */
    public Result pull(Target target, boolean projector, Consumer<Progress> progress) {
        progress.accept(Progress.of("pulling manifest"));
        String revision = "main";
        List<String> siblings = target.file().isEmpty() || projector ? siblings(target.repo(), revision) : List.of();
        List<String> files =
                target.file().isEmpty() ? choose(target, siblings) : splitSiblings(target.file(), List.of());
        String commit = null;
        List<Path> linked = new ArrayList<>();
        for (String file : files) {
            Remote remote = head(target.repo(), revision, file);
            commit = commit == null ? remote.commit() : commit;
            Path blob = fetch(remote, progress);
            linked.add(link(target.repo(), remote.commit(), file, blob));
        }
        Optional<Path> mmproj = Optional.empty();
        Optional<String> best = projector ? bestProjector(siblings, files.getFirst()) : Optional.empty();
        if (best.isPresent()) {
            // by the model's commit, so that both land in one snapshot even if main moved meanwhile
            Remote remote = head(target.repo(), commit, best.get());
            mmproj = Optional.of(link(target.repo(), commit, best.get(), fetch(remote, progress)));
        }
        progress.accept(Progress.of("writing manifest"));
        writeRef(target.repo(), revision, commit);
        String first = Path.of(files.getFirst()).getFileName().toString();
        Matcher split = SPLIT.matcher(first);
        String stem = split.matches() ? split.group(1) : first.substring(0, first.length() - ".gguf".length());
        progress.accept(Progress.of("success"));
        return new Result(target.repo(), commit, linked, target.repo() + "/" + stem, mmproj);
    }

    /** The repository's files at {@code revision}, in the hub's order. */
    List<String> siblings(String repo, String revision) {
        URI uri = endpoint.resolve("/api/models/" + repo + "/revision/" + revision);
        HttpResponse<InputStream> r = send(HttpRequest.newBuilder(uri).GET(), true);
        List<String> names = new ArrayList<>();
        try (InputStream in = r.body()) {
            if (r.statusCode() != 200) {
                throw status(r.statusCode(), repo, uri);
            }
            JsonNode body = JSON.readTree(in.readNBytes(16 << 20));
            for (JsonNode s : body.path("siblings")) {
                names.add(s.path("rfilename").asText(""));
            }
        } catch (IOException e) {
            throw new ForgeException("cannot read the file list of " + repo + ": " + e.getMessage(), e);
        }
        return names;
    }

    /** The repository's GGUF files with the quant's tag (every part of a split one); never a projector. */
    List<String> choose(Target target, List<String> siblings) {
        List<String> ggufs = new ArrayList<>();
        for (String name : siblings) {
            String lower = name.toLowerCase(Locale.ROOT);
            if (lower.endsWith(".gguf") && !lower.contains("mmproj")) {
                ggufs.add(name);
            }
        }
        String quant = target.quantOrDefault();
        Pattern tag = Pattern.compile("(^|[-._/])" + Pattern.quote(quant.toUpperCase(Locale.ROOT)) + "([-._/]|$)");
        List<String> matching = ggufs.stream()
                .filter(f -> tag.matcher(f.toUpperCase(Locale.ROOT)).find())
                .sorted()
                .toList();
        if (matching.isEmpty()) {
            if (target.quant().isEmpty() && !ggufs.isEmpty()) {
                matching = ggufs.stream().sorted().toList(); // no Q4_K_M: the first GGUF, as llama.cpp's -hf
            } else {
                throw new ForgeException(target.repo() + " has no GGUF file for " + quant
                        + (ggufs.isEmpty()
                                ? " (it has no GGUF at all)"
                                : "; its GGUF files: " + String.join(", ", ggufs)));
            }
        }
        return splitSiblings(matching.getFirst(), ggufs);
    }

    /**
     * The projector to pull with {@code model}, as llama.cpp's {@code find_best_mmproj} picks it
     * ({@code common/download.cpp}): a {@code .gguf} with {@code mmproj} in its path whose folder
     * is the model's or one above it, the deepest such folder first, then the quant closest in bits
     * to the model's ({@code F16} is 16, {@code Q8_0} 8); on a tie, the first the hub lists.
     */
    static Optional<String> bestProjector(List<String> siblings, String model) {
        String[] modelParts = model.split("/", -1);
        int modelBits = quantBits(model);
        String best = null;
        int bestDepth = 0;
        int bestDiff = 0;
        for (String f : siblings) {
            if (!f.endsWith(".gguf") || !f.contains("mmproj")) {
                continue;
            }
            String[] parts = f.split("/", -1);
            int depth = parts.length - 1;
            boolean above = depth <= modelParts.length - 1;
            for (int i = 0; above && i < depth; i++) {
                above = parts[i].equals(modelParts[i]);
            }
            if (!above) {
                continue;
            }
            int diff = Math.abs(quantBits(f) - modelBits);
            if (best == null || depth > bestDepth || (depth == bestDepth && diff < bestDiff)) {
                best = f;
                bestDepth = depth;
                bestDiff = diff;
            }
        }
        return Optional.ofNullable(best);
    }

    private static final Pattern QUANT_TAG = Pattern.compile("[-.]([A-Z0-9_]+)$", Pattern.CASE_INSENSITIVE);
    private static final Pattern DIGITS = Pattern.compile("[0-9]{1,9}");

    /** The bits of a file's quant tag, as llama.cpp reads them ({@code Q4_K_M} 4, {@code F16} 16); 0 for none. */
    static int quantBits(String path) {
        Matcher split = SPLIT.matcher(path);
        String stem = split.matches()
                ? split.group(1)
                : path.endsWith(".gguf") ? path.substring(0, path.length() - ".gguf".length()) : path;
        Matcher tag = QUANT_TAG.matcher(stem);
        if (!tag.find()) {
            return 0;
        }
        Matcher digits = DIGITS.matcher(tag.group(1));
        return digits.find() ? Integer.parseInt(digits.group()) : 0;
    }

    /** {@code file} and, when it is a part of a split model, every part (named as llama-gguf-split names them). */
    static List<String> splitSiblings(String file, List<String> known) {
        Matcher m = SPLIT.matcher(file);
        if (!m.matches()) {
            return List.of(file);
        }
        int count = Integer.parseInt(m.group(3));
        List<String> parts = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            parts.add(m.group(1) + "-%05d-of-%s.gguf".formatted(i, m.group(3)));
        }
        return parts;
    }

    /** A file as the hub describes it. */
    record Remote(String repo, String file, URI uri, String commit, String sha256, long size) {}

    /** {@code HEAD .../resolve/<rev>/<file>}: the commit, the LFS sha256 and the size, without following the redirect. */
    Remote head(String repo, String revision, String file) {
        URI uri = endpoint.resolve("/" + repo + "/resolve/" + revision + "/" + encodePath(file));
        HttpResponse<InputStream> r =
                send(HttpRequest.newBuilder(uri).method("HEAD", HttpRequest.BodyPublishers.noBody()), true);
        close(r);
        if (r.statusCode() >= 400) {
            throw status(r.statusCode(), repo + "/" + file, uri);
        }
        String sha = unquote(r.headers()
                .firstValue("x-linked-etag")
                .or(() -> r.headers().firstValue("etag"))
                .orElse(""));
        if (!SHA256.matcher(sha).matches()) {
            throw new ForgeException(
                    repo + "/" + file + ": the hub gives no sha256 for it (etag '" + sha + "'): not an LFS file");
        }
        long size = r.headers()
                .firstValue("x-linked-size")
                .or(() -> r.headers().firstValue("content-length"))
                .map(Long::parseLong)
                .orElse(-1L);
        String commit = r.headers().firstValue("x-repo-commit").orElse(revision);
        if (!commit.matches("[0-9a-zA-Z._-]{1,100}")) {
            throw new ForgeException(repo + ": the hub answered a strange commit '" + commit + "'");
        }
        return new Remote(repo, file, uri, commit, sha, size);
    }

    /**
     * The file's bytes in {@code blobs/<sha256>}, fetched into {@code .incomplete} (resumed from
     * what is there with {@code Range}), hashed, and renamed only when the hash is the hub's.
     */
    Path fetch(Remote remote, Consumer<Progress> progress) {
        Path blobs = repoDir(remote.repo()).resolve("blobs");
        Path blob = blobs.resolve(remote.sha256());
        String digest = "sha256:" + remote.sha256();
        String status = "pulling " + remote.sha256().substring(0, 12);
        try {
            if (Files.isRegularFile(blob) && (remote.size() < 0 || Files.size(blob) == remote.size())) {
                progress.accept(new Progress(status, digest, Files.size(blob), Files.size(blob)));
                return blob;
            }
            Files.createDirectories(blobs);
            Path part = blobs.resolve(remote.sha256() + ".incomplete");
            IOException last = null;
            for (int attempt = 1; attempt <= TRIES; attempt++) {
                try {
                    download(remote, part, status, digest, progress);
                    last = null;
                    break;
                } catch (IOException e) {
                    last = e;
                    LOG.warn(
                            "{}: cut after {} bytes ({}); resuming (try {} of {})",
                            remote.file(),
                            Files.exists(part) ? Files.size(part) : 0,
                            e.toString(),
                            attempt,
                            TRIES);
                }
            }
            if (last != null) {
                throw new ForgeException(
                        remote.file() + ": the download failed " + TRIES + " times (run the pull again to resume): "
                                + last.getMessage(),
                        last);
            }
            progress.accept(new Progress("verifying sha256 digest", digest, remote.size(), remote.size()));
            String actual = sha256(part);
            if (!actual.equals(remote.sha256())) {
                Files.deleteIfExists(part);
                throw new ForgeException(remote.file() + ": sha256 mismatch: the hub says " + remote.sha256()
                        + ", the bytes are " + actual + " (deleted; run the pull again)");
            }
            Files.move(part, blob, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return blob;
        } catch (IOException e) {
            throw new ForgeException(remote.file() + ": " + e.getMessage(), e);
        }
    }

    /** One try: GET with {@code Range} from what {@code part} holds, following redirects by hand, appending. */
    private void download(Remote remote, Path part, String status, String digest, Consumer<Progress> progress)
            throws IOException {
        long have = Files.exists(part) ? Files.size(part) : 0;
        if (remote.size() >= 0 && have > remote.size()) {
            Files.delete(part); // more than the file: not ours to resume
            have = 0;
        }
        if (remote.size() >= 0 && have == remote.size()) {
            return;
        }
        URI uri = remote.uri();
        HttpResponse<InputStream> r = null;
        for (int hop = 0; hop < 6; hop++) {
            HttpRequest.Builder b = HttpRequest.newBuilder(uri).GET();
            if (have > 0) {
                b.header("Range", "bytes=" + have + "-");
            }
            // the token goes to the hub only: a redirect to another host (its blob storage) gets none
            r = send(b, uri.getHost().equals(endpoint.getHost()) && uri.getPort() == endpoint.getPort());
            if (r.statusCode() / 100 == 3 && r.headers().firstValue("location").isPresent()) {
                close(r);
                uri = uri.resolve(r.headers().firstValue("location").get());
                continue;
            }
            break;
        }
        try (InputStream in = r.body()) {
            if (r.statusCode() == 416 && remote.size() == have) {
                return;
            }
            if (r.statusCode() != 200 && r.statusCode() != 206) {
                throw status(r.statusCode(), remote.repo() + "/" + remote.file(), uri);
            }
            boolean append = r.statusCode() == 206;
            if (!append) {
                have = 0; // the server ignored the Range: start over
            }
            long total = remote.size() >= 0
                    ? remote.size()
                    : have + r.headers().firstValueAsLong("content-length").orElse(0);
            try (OutputStream out = Files.newOutputStream(
                    part,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE,
                    append ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING)) {
                byte[] buffer = new byte[1 << 16];
                long reported = -1;
                progress.accept(new Progress(status, digest, total, have));
                for (int n; (n = in.read(buffer)) > 0; ) {
                    out.write(buffer, 0, n);
                    have += n;
                    if (have - reported >= Math.max(1 << 20, total / 100)) {
                        reported = have;
                        progress.accept(new Progress(status, digest, total, have));
                    }
                }
            }
            progress.accept(new Progress(status, digest, total, have));
            if (remote.size() >= 0 && have < remote.size()) {
                throw new IOException("the connection ended at " + have + " of " + remote.size() + " bytes");
            }
        }
    }

    /** {@code snapshots/<commit>/<file>}: a relative symlink to the blob, as huggingface_hub writes it. */
    private Path link(String repo, String commit, String file, Path blob) {
        Path snapshot = repoDir(repo).resolve("snapshots").resolve(commit);
        Path target = snapshot.resolve(file).normalize();
        if (!target.startsWith(snapshot)) {
            throw new ForgeException("not a file of the repository: '" + file + "'");
        }
        try {
            Files.createDirectories(target.getParent());
            Path relative = target.getParent().relativize(blob);
            Path tmp = target.resolveSibling(target.getFileName() + ".link");
            Files.deleteIfExists(tmp);
            try {
                Files.createSymbolicLink(tmp, relative);
            } catch (UnsupportedOperationException | IOException e) {
                Files.copy(blob, tmp); // no symlinks on this file system: a copy, as huggingface_hub falls back
            }
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return target;
        } catch (IOException e) {
            throw new ForgeException("cannot link " + target + ": " + e.getMessage(), e);
        }
    }

    private void writeRef(String repo, String revision, String commit) {
        try {
            Path refs = Files.createDirectories(repoDir(repo).resolve("refs"));
            Path tmp = refs.resolve(revision + ".tmp");
            Files.writeString(tmp, commit);
            Files.move(
                    tmp, refs.resolve(revision), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new ForgeException("cannot write " + repo + "'s refs/" + revision + ": " + e.getMessage(), e);
        }
    }

    private HttpResponse<InputStream> send(HttpRequest.Builder b, boolean toHub) {
        if (toHub && token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        b.header("User-Agent", "forgelm");
        try {
            return client().send(b.timeout(Duration.ofMinutes(5)).build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw new ForgeException("cannot reach " + endpoint + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ForgeException("interrupted", e);
        }
    }

    private ForgeException status(int code, String what, URI uri) {
        return switch (code) {
            case 401, 403 ->
                new ForgeException(what + ": " + code + " from the hub: a gated or private repository needs a token"
                        + (token == null ? " (set HF_TOKEN)" : " (HF_TOKEN was sent and refused)"));
            case 404 -> new ForgeException(what + ": not found on " + endpoint);
            default -> new ForgeException(what + ": the hub answered " + code + " for " + uri);
        };
    }

    private static void close(HttpResponse<InputStream> r) {
        try {
            r.body().close();
        } catch (IOException e) {
            // nothing was read from it
        }
    }

    private static String unquote(String etag) {
        return etag.replaceFirst("^W/", "").replace("\"", "").strip().toLowerCase(Locale.ROOT);
    }

    private static String encodePath(String file) {
        StringBuilder s = new StringBuilder();
        for (String segment : file.split("/")) {
            if (!s.isEmpty()) {
                s.append('/');
            }
            s.append(URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20"));
        }
        return s.toString();
    }

    static String sha256(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[1 << 16];
            for (int n; (n = in.read(buffer)) > 0; ) {
                sha.update(buffer, 0, n);
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
