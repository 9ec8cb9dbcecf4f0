package forge.runtime.engine;

import forge.api.backend.KvCacheType;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host prompt cache kept across restarts ({@code --prompt-cache-dir}): a file per entry,
 * mirroring the cache, so it is bounded as the cache is ({@code --cache-ram}). An entry added is
 * written, one evicted is deleted, both on a writer thread of its own (never the engine's, whose
 * step a disk write would stall). At an engine's start {@link #load} reads the files of its model
 * back into the cache.
 *
 * <p>A file says what it may be restored into, its {@link PromptCache.Key} (the model file's path,
 * size, modification time and header hash, the context settings), and ends with a CRC-32 of all
 * before it. A file that cannot be read whole, whose checksum differs, or that names the model
 * being loaded with another identity or other settings (the file was replaced, or the server runs
 * with other settings) is deleted, never loaded. Files of other models are left for them.
 */
public final class PromptCacheStore implements PromptCache.Listener, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PromptCacheStore.class);
    static final int MAGIC = 0x46504331; // "FPC1"
    static final String SUFFIX = ".fpc";

    private final Path dir;
    private final PromptCache cache;
    private final ExecutorService writer = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().name("forge-prompt-cache-writer").daemon(true).factory());

    /** Creates {@code dir} if need be; listens to {@code cache} from now on. */
    public PromptCacheStore(Path dir, PromptCache cache) throws IOException {
        this.dir = Files.createDirectories(dir);
        this.cache = cache;
        cache.listen(this);
    }

    public Path dir() {
        return dir;
    }

    /**
     * Reads every sound file of {@code key} into the cache (as far as it fits), deleting the
     * damaged ones and those of the same model path with another identity or settings.
     *
     * @return how many entries it loaded
     */
    public int load(PromptCache.Key key) {
        int loaded = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path file : files) {
                PromptCache.Entry entry;
                try {
                    entry = read(Files.readAllBytes(file));
                } catch (IOException | RuntimeException e) {
                    LOG.warn("prompt cache file {} is damaged ({}); deleting it", file.getFileName(), e.getMessage());
                    delete(file);
                    continue;
                }
                if (!entry.key().model().equals(key.model())) {
                    continue; // another model's
                }
                if (!entry.key().equals(key) || !file.getFileName().toString().equals(name(entry))) {
                    LOG.info(
                            "prompt cache file {} was saved from another model file or other settings; deleting it",
                            file.getFileName());
                    delete(file);
                    continue;
                }
                if (cache.put(entry)) {
                    loaded++;
                } else {
                    delete(file); // larger than the cache, or held by a longer entry
                }
            }
        } catch (IOException e) {
            LOG.warn("cannot read the prompt cache folder {}: {}", dir, e.getMessage());
        }
        return loaded;
    }

    @Override
    public void added(PromptCache.Entry entry) {
        Path file = dir.resolve(name(entry));
        writer.execute(() -> {
            if (Files.exists(file)) {
                return; // loaded from it
            }
            Path partial = dir.resolve(file.getFileName() + ".tmp");
            try {
                Files.write(partial, write(entry));
                Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException | UncheckedIOException e) {
                LOG.warn("cannot write prompt cache file {}: {}", file, e.getMessage());
                delete(partial);
            }
        });
    }

    @Override
    public void removed(PromptCache.Entry entry) {
        Path file = dir.resolve(name(entry));
        writer.execute(() -> delete(file));
    }

    /** Waits for the writes and deletions queued so far; the store writes nothing after. */
    @Override
    public void close() {
        writer.shutdown();
        try {
            if (!writer.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.warn("prompt cache writes to {} did not finish in 30 s", dir);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.warn("cannot delete prompt cache file {}: {}", file, e.getMessage());
        }
    }

    /** A file's name: a hash of its key and tokens, so an entry has one file and a load finds it written. */
    static String name(PromptCache.Entry entry) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(entry.key().toString().getBytes(StandardCharsets.UTF_8));
            ByteBuffer tokens = ByteBuffer.allocate(4 * entry.tokens().length);
            tokens.asIntBuffer().put(entry.tokens());
            sha.update(tokens.array());
            return HexFormat.of().formatHex(sha.digest(), 0, 16) + SUFFIX;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The bytes of an entry's file. */
    static byte[] write(PromptCache.Entry entry) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(entry.state().length + 4 * entry.tokens().length + 512);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            PromptCache.Key k = entry.key();
            out.writeInt(MAGIC);
            writeString(out, k.model());
            out.writeLong(k.modelSize());
            out.writeLong(k.modelModified());
            writeString(out, k.headerHash());
            out.writeInt(k.slotContext());
            out.writeInt(k.slots());
            writeString(out, k.kvType().name());
            writeString(out, k.flashAttention());
            out.writeInt(entry.tokens().length);
            for (int t : entry.tokens()) {
                out.writeInt(t);
            }
            out.writeInt(entry.state().length);
            out.write(entry.state());
            CRC32 crc = new CRC32();
            crc.update(bytes.toByteArray());
            out.writeLong(crc.getValue());
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
        }
        return bytes.toByteArray();
    }

    /**
     * The entry in a file's bytes.
     *
     * @throws IllegalArgumentException when they are not a whole, sound entry file
     */
    static PromptCache.Entry read(byte[] file) {
        if (file.length < 12) {
            throw new IllegalArgumentException("truncated: " + file.length + " bytes");
        }
        CRC32 crc = new CRC32();
        crc.update(file, 0, file.length - 8);
        ByteBuffer in = ByteBuffer.wrap(file);
        if (in.getLong(file.length - 8) != crc.getValue()) {
            throw new IllegalArgumentException("checksum mismatch");
        }
        try {
            if (in.getInt() != MAGIC) {
                throw new IllegalArgumentException("not a prompt cache file");
            }
            PromptCache.Key key = new PromptCache.Key(
                    utf(in),
                    in.getLong(),
                    in.getLong(),
                    utf(in),
                    in.getInt(),
                    in.getInt(),
                    KvCacheType.valueOf(utf(in)),
                    utf(in));
            int n = in.getInt();
            if (n < 1 || n > in.remaining() / 4) {
                throw new IllegalArgumentException(n + " tokens");
            }
            int[] tokens = new int[n];
            in.asIntBuffer().get(tokens);
            in.position(in.position() + 4 * n);
            int size = in.getInt();
            if (size < 1 || size != in.remaining() - 8) {
                throw new IllegalArgumentException("a state of " + size + " bytes in " + (in.remaining() - 8));
            }
            byte[] state = new byte[size];
            in.get(state);
            return new PromptCache.Entry(key, tokens, state);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated", e);
        }
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    /** A string as {@link #writeString} wrote it: its length in bytes, then its UTF-8. */
    private static String utf(ByteBuffer in) {
        int length = in.getInt();
        if (length < 0 || length > in.remaining()) {
            throw new IllegalArgumentException("a string of " + length + " bytes");
        }
        byte[] b = new byte[length];
        in.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
