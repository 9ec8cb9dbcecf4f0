package forge.http.server;

import forge.api.template.ChatImage;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The images (and audio clips) the server read lately, so that a returning turn, which sends its
 * conversation's images again, is not hashed again: {@link ChatImage#of} hashes every byte with
 * SHA-256, the largest cost left in reading an image on a server whose JIT stops at C1 (a few
 * milliseconds for a screenshot), while comparing bytes with the ones kept is a fraction of it.
 *
 * <p>Entries are looked up by a fingerprint of the bytes (their length and bytes sampled across
 * them) and taken only when every byte is equal, so a fingerprint shared by other bytes is a miss,
 * never another image's id. At most {@link #MAX_ENTRIES} images and {@link #MAX_BYTES} bytes are
 * kept, the least recently used dropped first; the bytes kept are the ones the requests held anyway.
 * Thread-safe (one lock around a small map; the compare runs outside it).
 */
final class RecentImages {

    /** The most images kept. */
    static final int MAX_ENTRIES = 32;

    /** The most bytes kept, all images together. */
    static final long MAX_BYTES = 32L << 20;

    /** The one the server's requests share. */
    static final RecentImages SHARED = new RecentImages(MAX_ENTRIES, MAX_BYTES);

    private static final int SAMPLES = 64;

    private final int maxEntries;
    private final long maxBytes;
    private final LinkedHashMap<Long, ChatImage> entries = new LinkedHashMap<>(16, 0.75f, true);
    private long bytes;

    RecentImages(int maxEntries, long maxBytes) {
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
    }

    /** {@link ChatImage#of}{@code (data)}: the one kept when its bytes are {@code data}'s. */
    ChatImage of(byte[] data) {
        long key = fingerprint(data);
        ChatImage kept;
        synchronized (this) {
            kept = entries.get(key);
        }
        if (kept != null && Arrays.equals(kept.data(), data)) {
            return kept;
        }
        ChatImage image = ChatImage.of(data);
        synchronized (this) {
            ChatImage old = entries.put(key, image);
            bytes += data.length - (old == null ? 0 : old.data().length);
            var eldest = entries.entrySet().iterator();
            while ((entries.size() > maxEntries || bytes > maxBytes) && eldest.hasNext()) {
                Map.Entry<Long, ChatImage> e = eldest.next();
                bytes -= e.getValue().data().length;
                eldest.remove();
            }
        }
        return image;
    }

    /** How many images are kept. */
    synchronized int size() {
        return entries.size();
    }

    /** The length, and {@link #SAMPLES} bytes spread evenly across {@code data} (all of a short one). */
    static long fingerprint(byte[] data) {
        long h = data.length;
        int step = Math.max(1, data.length / SAMPLES);
        for (int i = 0; i < data.length; i += step) {
            h = h * 1_000_003L + data[i];
        }
        return h * 1_000_003L + (data.length == 0 ? 0 : data[data.length - 1]);
    }
}
