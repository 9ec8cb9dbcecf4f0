package forge.runtime.engine;

import forge.api.backend.KvCacheType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The prompt cache beyond the slots ({@code --cache-ram}, as llama-server's): sequence states saved
 * from slots whose cells were about to be replaced, kept in host memory up to a size in bytes, so
 * that a request whose prompt starts with one of them restores it into its slot and prefills only
 * the rest. Shared by every engine of the process; each entry carries the {@link Key} of the model
 * and settings it was saved under, and is only ever offered to a context of the same key.
 *
 * <p>The decisions are pure logic on plain values (STYLE.md rule 8): {@link #worthSaving} says when a
 * slot's cells are saved, {@link #longest} which entry a prompt restores (the longest token prefix
 * over every entry), {@link #put} what is evicted (least recently used first, until the entries fit
 * the limit; an entry that a longer one starts with goes too, it restores nothing the longer one
 * does not). The native part is the scheduler's ({@code InferenceContext.saveSequence} /
 * {@code restoreSequence}). Thread-safe: engine threads and the disk loader share it.
 */
public final class PromptCache {

    /** A slot's cells are worth saving only from this many tokens on: fewer are faster to prefill than to look up. */
    static final int MIN_TOKENS = 32;

    /**
     * What a saved state may be restored into: the model file (its path, size, modification time
     * and a hash of its first bytes, its header) and the context settings that shape a sequence's
     * state (cells per slot, slots, KV type, flash attention).
     */
    public record Key(
            String model,
            long modelSize,
            long modelModified,
            String headerHash,
            int slotContext,
            int slots,
            KvCacheType kvType,
            String flashAttention) {
        public Key {
            Objects.requireNonNull(model);
            Objects.requireNonNull(headerHash);
            Objects.requireNonNull(kvType);
            Objects.requireNonNull(flashAttention);
        }

        /** How many of a model file's first bytes {@link #of} hashes: a GGUF header and its metadata. */
        static final int HEADER_BYTES = 1 << 20;

        /** The key of a model file served with {@code config}, without a projector. */
        public static Key of(Path model, EngineConfig config) throws IOException {
            return of(model, Optional.empty(), config);
        }

        /**
         * The key of a model file served with {@code config} and {@code projector}: the projector's
         * identity (its path, size, modification time and first bytes) is hashed into
         * {@link #headerHash}, since a state holding an image's cells is that projector's encoding
         * of it; its tokens name the image only by its hash ({@code MediaTokens}).
         */
        public static Key of(Path model, Optional<Path> projector, EngineConfig config) throws IOException {
            Path file = model.toAbsolutePath().normalize();
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            MessageDigest sha;
            try {
                sha = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
            try (InputStream in = Files.newInputStream(file)) {
                sha.update(in.readNBytes(HEADER_BYTES));
            }
            if (projector.isPresent()) {
                Path mmproj = projector.get().toAbsolutePath().normalize();
                BasicFileAttributes p = Files.readAttributes(mmproj, BasicFileAttributes.class);
                sha.update(
                        (mmproj + "\0" + p.size() + "\0" + p.lastModifiedTime().toMillis())
                                .getBytes(StandardCharsets.UTF_8));
                try (InputStream in = Files.newInputStream(mmproj)) {
                    sha.update(in.readNBytes(HEADER_BYTES));
                }
            }
            return new Key(
                    file.toString(),
                    attributes.size(),
                    attributes.lastModifiedTime().toMillis(),
                    HexFormat.of().formatHex(sha.digest()),
                    config.slotContext(),
                    config.slots(),
                    config.kvCacheType(),
                    config.flashAttention().name());
        }
    }

    /**
     * One saved state: the tokens its cells hold, by position, and the backend's bytes.
     *
     * @param key    what it may be restored into
     * @param tokens the tokens of positions {@code 0..tokens.length-1}
     * @param state  what {@code InferenceContext.saveSequence} returned
     */
    public record Entry(Key key, int[] tokens, byte[] state) {
        public Entry {
            Objects.requireNonNull(key);
            Objects.requireNonNull(tokens);
            Objects.requireNonNull(state);
        }

        /** What it costs the cache's limit: its state and its tokens. */
        public long bytes() {
            return state.length + 4L * tokens.length;
        }
    }

    /** What a prompt can restore: {@code entry}, of which its first {@code tokens} tokens are the prompt's. */
    record Match(Entry entry, int tokens) {}

    /** Told of every entry that comes and goes, under the cache's lock: the disk store mirrors them. */
    public interface Listener {
        void added(Entry entry);

        void removed(Entry entry);
    }

    /** A cache that keeps nothing ({@code --cache-ram 0}). */
    public static final PromptCache OFF = new PromptCache(0);

    private final long limitBytes;
    /** Least recently used first. */
    private final List<Entry> entries = new ArrayList<>();

    private long bytes;
    private Listener listener;

    /** @param limitBytes the most its entries may hold together; 0 keeps nothing */
    public PromptCache(long limitBytes) {
        if (limitBytes < 0) {
            throw new IllegalArgumentException("a prompt cache of " + limitBytes + " bytes");
        }
        this.limitBytes = limitBytes;
    }

    /** Makes {@code listener} hear of every entry added or removed from now on. */
    public synchronized void listen(Listener listener) {
        this.listener = listener;
    }

    /** Whether it keeps anything at all. */
    public boolean enabled() {
        return limitBytes > 0;
    }

    public long limitBytes() {
        return limitBytes;
    }

    /** What its entries hold now, in bytes. */
    public synchronized long bytes() {
        return bytes;
    }

    /** How many entries it holds. */
    public synchronized int size() {
        return entries.size();
    }

    /** The entries, least recently used first. */
    public synchronized List<Entry> entries() {
        return List.copyOf(entries);
    }

    /**
     * Whether a slot's first {@code cached} cells, of which a new request keeps only the first
     * {@code kept}, are saved before they go: when they are at least {@value #MIN_TOKENS} tokens and
     * the request keeps less than half of them (it would otherwise keep most of what a saved
     * state gives back).
     */
    static boolean worthSaving(int cached, int kept) {
        return cached >= MIN_TOKENS && kept * 2 < cached;
    }

    /**
     * The entry of {@code key} that holds the longest prefix of {@code prompt[0, usable)}, the most
     * recently used among equals; null when none holds a token of it.
     */
    synchronized Match longest(Key key, int[] prompt, int usable) {
        Match best = null;
        for (Entry e : entries) { // least recently used first, so a later equal one wins
            if (!e.key().equals(key)) {
                continue;
            }
            int n = SlotView.commonPrefix(e.tokens(), e.tokens().length, prompt, usable);
            if (n > 0 && (best == null || n >= best.tokens())) {
                best = new Match(e, n);
            }
        }
        return best;
    }

    /** Whether an entry of {@code key} holds {@code tokens[0, n)} already, so saving them again adds nothing. */
    synchronized boolean holds(Key key, int[] tokens, int n) {
        for (Entry e : entries) {
            if (e.key().equals(key) && e.tokens().length >= n && SlotView.commonPrefix(e.tokens(), n, tokens, n) == n) {
                return true;
            }
        }
        return false;
    }

    /** Marks {@code entry} used now, so that it is evicted last. */
    synchronized void touch(Entry entry) {
        if (entries.remove(entry)) {
            entries.add(entry);
        }
    }

    /**
     * Adds {@code entry} as the most recently used, removing the entries of its key that it starts
     * with, then the least recently used until the rest fit the limit.
     *
     * @return whether it was kept (not when it alone exceeds the limit, or an entry holds it already)
     */
    public synchronized boolean put(Entry entry) {
        if (entry.bytes() > limitBytes || holds(entry.key(), entry.tokens(), entry.tokens().length)) {
            return false;
        }
        for (Entry e : List.copyOf(entries)) {
            if (e.key().equals(entry.key())
                    && e.tokens().length <= entry.tokens().length
                    && SlotView.commonPrefix(e.tokens(), e.tokens().length, entry.tokens(), e.tokens().length)
                            == e.tokens().length) {
                remove(e);
            }
        }
        entries.add(entry);
        bytes += entry.bytes();
        if (listener != null) {
            listener.added(entry);
        }
        while (bytes > limitBytes) {
            remove(entries.getFirst());
        }
        return true;
    }

    private void remove(Entry e) {
        entries.remove(e);
        bytes -= e.bytes();
        if (listener != null) {
            listener.removed(e);
        }
    }
}
