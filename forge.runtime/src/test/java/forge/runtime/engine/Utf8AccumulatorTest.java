package forge.runtime.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Utf8AccumulatorTest {

    /** Feeds text one byte at a time, the worst split a tokenizer could make. */
    private static String byteByByte(String text) {
        Utf8Accumulator acc = new Utf8Accumulator();
        StringBuilder out = new StringBuilder();
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            String piece = acc.push(new byte[] {b});
            // Every emitted piece is whole characters: re-encoding gives back valid UTF-8 of the same length.
            assertEquals(piece, new String(piece.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8));
            assertEquals(-1, piece.indexOf('\uFFFD'), "emitted a broken character");
            out.append(piece);
        }
        out.append(acc.flush());
        return out.toString();
    }

    @Test
    void holdsSplitCharactersUntilComplete() {
        for (String s : new String[] {"héllo", "日本語のテキスト", "emoji 🙂👍🏽 done", "mixed a€b𝄞c"}) {
            assertEquals(s, byteByByte(s));
        }
    }

    @Test
    void emitsNothingForAnIncompleteEmojiThenAllAtOnce() {
        Utf8Accumulator acc = new Utf8Accumulator();
        byte[] smile = "🙂".getBytes(StandardCharsets.UTF_8);
        assertEquals("", acc.push(new byte[] {smile[0], smile[1]}));
        assertEquals("", acc.push(new byte[] {smile[2]}));
        assertEquals("🙂", acc.push(new byte[] {smile[3]}));
    }

    @Test
    void flushesInvalidBytesAsReplacement() {
        Utf8Accumulator acc = new Utf8Accumulator();
        assertEquals("", acc.push(new byte[] {(byte) 0xE4, (byte) 0xB8}));
        assertEquals("\uFFFD", acc.flush());
    }

    @Test
    void passesInvalidLeadBytesThroughWithoutHoldingForever() {
        Utf8Accumulator acc = new Utf8Accumulator();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(0xFF);
        bytes.writeBytes("ok".getBytes(StandardCharsets.UTF_8));
        assertEquals("\uFFFDok", acc.push(bytes.toByteArray()));
    }
}
