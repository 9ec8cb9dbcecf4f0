package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import forge.api.template.ChatImage;
import java.util.Random;
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
}
