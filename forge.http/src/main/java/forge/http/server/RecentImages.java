package forge.http.server;

import forge.api.template.ChatImage;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;

/**
 * The images (and audio clips) the server read lately, so that a returning turn, which sends its
 * conversation's images again, is not hashed again: {@link ChatImage#of} hashes every byte with
 * SHA-256, the largest cost left in reading an image on a server whose JIT stops at C1 (a few
 * milliseconds for a screenshot), while comparing bytes with the ones kept is a fraction of it.
 *
 * <p>Entries are looked up by a fingerprint of the bytes (their length and bytes sampled across
 * them) and taken only when every byte is equal, so a fingerprint shared by other bytes is a miss,
 * never another image's id. An image read from text (a data URI, base64) is also kept under that
 * text, so that the same text sent again is not even decoded: compared with the text kept (with
 * {@link String#regionMatches}, which compares arrays as {@link Arrays#equals} does, where
 * {@link String#equals} walks them a character at a time on C1). At most {@link #MAX_ENTRIES} images
 * and as many texts, and {@link #MAX_BYTES} bytes of both (a text's entry counted with its image's
 * bytes, which it holds), are kept, the least recently used dropped
 * first; what is kept is what the requests held anyway. Thread-safe (one lock around two small maps;
 * the compares run outside it).
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
    private final LinkedHashMap<Long, Read> texts = new LinkedHashMap<>(16, 0.75f, true);
    private long bytes;

    /** An image and the text it was read from. */
    private record Read(String text, ChatImage image) {}

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
            trim();
        }
        return image;
    }

    /**
     * The image {@code decode} reads from {@code text}: the one kept when an image was read from the
     * same text, without calling {@code decode}; else {@link #of}{@code (decode.apply(text))}.
     */
    ChatImage ofText(String text, Function<String, byte[]> decode) {
        long key = fingerprint(text);
        Read kept;
        synchronized (this) {
            kept = texts.get(key);
        }
        if (kept != null
                && kept.text().length() == text.length()
                && kept.text().regionMatches(0, text, 0, text.length())) {
            return kept.image();
        }
        ChatImage image = of(decode.apply(text));
        synchronized (this) {
            Read old = texts.put(key, new Read(text, image));
            bytes += held(text, image) - (old == null ? 0 : held(old.text(), old.image()));
            trim();
        }
        return image;
    }

    /** What a text's entry holds: the text, and its image, which the images' map may have dropped. */
    private static long held(String text, ChatImage image) {
        return text.length() + (long) image.data().length;
    }

    /** Drops the least recently used texts, then images, while there are too many or too many bytes. */
    private void trim() {
        // texts first: an image is kept without its text sooner than the other way round
        var oldest = texts.entrySet().iterator();
        while ((texts.size() > maxEntries || bytes > maxBytes) && oldest.hasNext()) {
            Read e = oldest.next().getValue();
            bytes -= held(e.text(), e.image());
            oldest.remove();
        }
        var eldest = entries.entrySet().iterator();
        while ((entries.size() > maxEntries || bytes > maxBytes) && eldest.hasNext()) {
            Map.Entry<Long, ChatImage> e = eldest.next();
            bytes -= e.getValue().data().length;
            eldest.remove();
        }
    }

    /** How many images are kept. */
    synchronized int size() {
        return entries.size();
    }

    /** How many texts are kept. */
    synchronized int texts() {
        return texts.size();
    }

    /** {@link #fingerprint(byte[])} of a text's characters. */
    static long fingerprint(String text) {
        return fingerprint(text.length(), text::charAt);
    }

    /** The length, and {@link #SAMPLES} bytes spread evenly across {@code data} (all of a short one). */
    static long fingerprint(byte[] data) {
        return fingerprint(data.length, i -> data[i]);
    }

    private static long fingerprint(int length, IntUnaryOperator at) {
        long h = length;
        int step = Math.max(1, length / SAMPLES);
        for (int i = 0; i < length; i += step) {
            h = h * 1_000_003L + at.applyAsInt(i);
        }
        return h * 1_000_003L + (length == 0 ? 0 : at.applyAsInt(length - 1));
    }
}
