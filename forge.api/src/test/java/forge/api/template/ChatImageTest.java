package forge.api.template;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What is known of an image before it is decoded: its format, the size its header declares, its id. */
class ChatImageTest {

    /** A PNG signature and IHDR declaring {@code width} x {@code height}: all a header check reads. */
    static byte[] pngHeader(int width, int height) {
        ByteBuffer b = ByteBuffer.allocate(33);
        b.put(new byte[] {(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A});
        b.putInt(13).put(new byte[] {'I', 'H', 'D', 'R'}).putInt(width).putInt(height);
        b.put(new byte[] {8, 2, 0, 0, 0}).putInt(0);
        return b.array();
    }

    @Test
    void theSizeIsReadFromTheHeaderOfEachFormat() {
        assertArrayEquals(
                new long[] {100, 80},
                ChatImage.of(pngHeader(100, 80)).dimensions().orElseThrow());
        assertArrayEquals(
                new long[] {100_000, 100_000},
                ChatImage.of(pngHeader(100_000, 100_000)).dimensions().orElseThrow(),
                "a bomb declares its size in a few bytes");
        byte[] gif = {'G', 'I', 'F', '8', '9', 'a', (byte) 0x2C, 0x01, (byte) 0xC8, 0x00};
        assertEquals(Optional.of("gif"), ChatImage.of(gif).format());
        assertArrayEquals(new long[] {300, 200}, ChatImage.of(gif).dimensions().orElseThrow());
        byte[] bmp = new byte[26];
        bmp[0] = 'B';
        bmp[1] = 'M';
        bmp[18] = 64; // width 64
        bmp[22] = (byte) 0xE0; // height -32 (top-down): 32 rows
        bmp[23] = (byte) 0xFF;
        bmp[24] = (byte) 0xFF;
        bmp[25] = (byte) 0xFF;
        assertArrayEquals(new long[] {64, 32}, ChatImage.of(bmp).dimensions().orElseThrow());
        // SOI, an APP0 segment of 4 bytes, then SOF0: length, precision, height 480, width 640
        byte[] jpeg = {
            (byte) 0xFF,
            (byte) 0xD8,
            (byte) 0xFF,
            (byte) 0xE0,
            0,
            4,
            0,
            0,
            (byte) 0xFF,
            (byte) 0xC0,
            0,
            17,
            8,
            0x01,
            (byte) 0xE0,
            0x02,
            (byte) 0x80
        };
        assertEquals(Optional.of("jpeg"), ChatImage.of(jpeg).format());
        assertArrayEquals(new long[] {640, 480}, ChatImage.of(jpeg).dimensions().orElseThrow());
        assertTrue(ChatImage.of(Arrays.copyOf(jpeg, 12)).dimensions().isEmpty(), "cut inside the frame header");
        assertTrue(ChatImage.of(Arrays.copyOf(pngHeader(4, 4), 20)).dimensions().isEmpty(), "cut inside IHDR");
    }

    @Test
    void unknownFormatsHaveNoFormatAndWebpIsNamed() {
        assertTrue(ChatImage.of("not an image".getBytes()).format().isEmpty());
        byte[] webp = {'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'E', 'B', 'P', 'V', 'P', '8', ' '};
        assertTrue(ChatImage.of(webp).format().isEmpty());
        assertTrue(ChatImage.of(webp).isWebp());
    }

    @Test
    void anImageIsNamedByTheHashOfItsBytes() {
        ChatImage a = ChatImage.of(pngHeader(2, 2));
        assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", ChatImage.sha256(new byte[0]));
        assertEquals(a, ChatImage.of(pngHeader(2, 2)));
        assertNotEquals(a, ChatImage.of(pngHeader(2, 3)));
        assertEquals(64, a.id().length());
    }
}
