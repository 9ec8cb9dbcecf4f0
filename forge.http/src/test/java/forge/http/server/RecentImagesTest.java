package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import forge.api.template.ChatImage;
import java.util.Base64;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class RecentImagesTest {

    private static byte[] bytes(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void anImageSentAgainIsTheOneReadBefore() {
        RecentImages recent = new RecentImages(4, 1 << 20);
        byte[] image = bytes(100_000, 1);
        ChatImage first = recent.of(image);
        assertEquals(ChatImage.sha256(image), first.id());
        ChatImage again = recent.of(image.clone());
        assertSame(first, again, "not hashed again");
        assertEquals(1, recent.size());
    }

    /** Bytes whose fingerprint is another image's are compared, and named by their own hash. */
    @Test
    void equalFingerprintsOfOtherBytesAreNotTheSameImage() {
        RecentImages recent = new RecentImages(4, 1 << 20);
        byte[] image = bytes(100_000, 2);
        byte[] other = image.clone();
        other[1] ^= 1; // between two sampled bytes (one every 1562)
        assertEquals(RecentImages.fingerprint(image), RecentImages.fingerprint(other));
        ChatImage a = recent.of(image);
        ChatImage b = recent.of(other);
        assertNotEquals(a.id(), b.id());
        assertEquals(ChatImage.sha256(other), b.id());
        assertEquals(ChatImage.sha256(image), recent.of(image).id());
    }

    @Test
    void theLeastRecentlyUsedGoFirstByCountAndByBytes() {
        RecentImages recent = new RecentImages(2, 250);
        byte[] a = bytes(100, 3);
        byte[] b = bytes(100, 4);
        byte[] c = bytes(100, 5);
        ChatImage first = recent.of(a);
        recent.of(b);
        assertSame(first, recent.of(a)); // a is now the most recent
        recent.of(c); // three would be over both limits: b goes
        assertEquals(2, recent.size());
        assertSame(first, recent.of(a));
        ChatImage bAgain = recent.of(b);
        assertEquals(ChatImage.sha256(b), bAgain.id());
        byte[] big = bytes(240, 6);
        recent.of(big); // 340 bytes with b: only big stays
        assertEquals(1, recent.size());
        assertNotSame(first, recent.of(a));
    }

    /** A returning turn sends the same data URI again: it is compared with the one read, not decoded. */
    @Test
    void anImageSentAgainAsTheSameTextIsNotDecodedAgain() {
        RecentImages recent = new RecentImages(4, 1 << 22);
        String text = Base64.getEncoder().encodeToString(bytes(30_000, 7));
        AtomicInteger decodes = new AtomicInteger();
        Function<String, byte[]> decode = t -> {
            decodes.incrementAndGet();
            return Base64.getDecoder().decode(t);
        };
        ChatImage first = recent.ofText(text, decode);
        assertSame(first, recent.ofText(new String(text.toCharArray()), decode));
        assertEquals(1, decodes.get());
        // the same fingerprint, another text: decoded, and named by its own bytes
        char[] c = text.toCharArray();
        c[1] = c[1] == 'A' ? 'B' : 'A';
        String other = new String(c);
        assertEquals(RecentImages.fingerprint(text), RecentImages.fingerprint(other));
        ChatImage b = recent.ofText(other, decode);
        assertEquals(2, decodes.get());
        assertEquals(ChatImage.sha256(Base64.getDecoder().decode(other)), b.id());
        // the same bytes under another text (a MIME line break): decoded, then the image read before
        String wrapped = text.substring(0, 76) + "\r\n" + text.substring(76);
        assertSame(first, recent.ofText(wrapped, t -> Base64.getMimeDecoder().decode(t)));
        assertEquals(2, recent.texts(), "other took the place of text, which has its fingerprint");
    }

    @Test
    void textsAreDroppedByCountAndByTheBytesTheyHold() {
        RecentImages recent = new RecentImages(2, 1 << 22);
        for (int seed = 10; seed < 13; seed++) {
            recent.ofText(Base64.getEncoder().encodeToString(bytes(1_000, seed)), Base64.getDecoder()::decode);
        }
        assertEquals(2, recent.texts());
        // a text and its image: 4,000 characters and 3,000 bytes, over a budget of 6,000
        RecentImages small = new RecentImages(8, 6_000);
        small.ofText(Base64.getEncoder().encodeToString(bytes(3_000, 20)), Base64.getDecoder()::decode);
        assertEquals(0, small.texts());
        assertEquals(1, small.size());
    }
}
