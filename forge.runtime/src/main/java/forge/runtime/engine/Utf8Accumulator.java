package forge.runtime.engine;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Turns token pieces (raw bytes) into text without ever emitting half a character: the bytes of
 * a character split across tokens are held until the character is complete. Invalid bytes are
 * emitted as U+FFFD once it is clear they can never complete.
 */
final class Utf8Accumulator {

    private byte[] buffer = new byte[64];
    private int length;

    /** Appends a token's bytes; returns the text that is now complete (possibly empty). */
    String push(byte[] piece) {
        if (length + piece.length > buffer.length) {
            buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, length + piece.length));
        }
        System.arraycopy(piece, 0, buffer, length, piece.length);
        length += piece.length;
        int complete = completePrefix(buffer, length);
        if (complete == 0) {
            return "";
        }
        String text = new String(buffer, 0, complete, StandardCharsets.UTF_8);
        System.arraycopy(buffer, complete, buffer, 0, length - complete);
        length -= complete;
        return text;
    }

    /** Whatever is still held, decoded with replacement characters: the generation has ended. */
    String flush() {
        String text = new String(buffer, 0, length, StandardCharsets.UTF_8);
        length = 0;
        return text;
    }

    /**
     * The length of the longest prefix that does not end inside a character that more bytes could
     * still complete.
     */
    static int completePrefix(byte[] bytes, int length) {
        // A character is at most 4 bytes: only the last 3 can belong to an unfinished one.
        for (int back = 1; back <= Math.min(3, length); back++) {
            int b = bytes[length - back] & 0xFF;
            if ((b & 0xC0) == 0x80) {
                continue; // a continuation byte: keep looking for its lead byte
            }
            int need = b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 1;
            return need > back ? length - back : length;
        }
        return length;
    }
}
