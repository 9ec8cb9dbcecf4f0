package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonTest {

    private static ApiError refused(byte[] body) {
        ApiError e = assertThrows(ApiError.class, () -> Json.parse(body));
        assertEquals(400, e.status());
        assertFalse(e.getMessage().contains("com.fasterxml") || e.getMessage().contains("java."), e.getMessage());
        return e;
    }

    private static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }

    private static byte[] concat(String a, byte[] middle, String b) {
        byte[] x = a.getBytes(StandardCharsets.UTF_8);
        byte[] y = b.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[x.length + middle.length + y.length];
        System.arraycopy(x, 0, out, 0, x.length);
        System.arraycopy(middle, 0, out, x.length, middle.length);
        System.arraycopy(y, 0, out, x.length + middle.length, y.length);
        return out;
    }

    @Test
    void oneObjectAndNothingAfterIt() {
        assertTrue(refused("{\"a\": 1}garbage".getBytes(StandardCharsets.UTF_8))
                .getMessage()
                .contains("garbage"));
        assertTrue(refused("{\"a\": 1} {\"b\": 2}".getBytes(StandardCharsets.UTF_8))
                .getMessage()
                .contains("more after"));
        assertTrue(refused("[1]".getBytes(StandardCharsets.UTF_8)).getMessage().contains("must be a JSON object"));
        assertEquals(
                1,
                Json.parse("{\"a\": 1}\n\t ".getBytes(StandardCharsets.UTF_8))
                        .get("a")
                        .asInt());
    }

    @Test
    void jacksonsLimitsAndFeaturesAreNotNamedToTheClient() {
        // Found by ChatRequestFuzzTest: Jackson's messages name its getters and feature flags.
        String deep = refused(
                        ("{\"messages\": " + "[".repeat(200) + "]".repeat(200) + "}").getBytes(StandardCharsets.UTF_8))
                .getMessage();
        assertTrue(deep.contains("nesting depth (65) exceeds the maximum allowed (64)"), deep);
        assertFalse(deep.contains("`") || deep.contains("StreamReadConstraints"), deep);
        String nan = refused("{\"temperature\": NaN}".getBytes(StandardCharsets.UTF_8))
                .getMessage();
        assertTrue(nan.contains("Non-standard token 'NaN'"), nan);
        assertFalse(nan.contains("`") || nan.contains("JsonReadFeature"), nan);
        String longNumber = refused(("{\"seed\": 1" + "0".repeat(1200) + "}").getBytes(StandardCharsets.UTF_8))
                .getMessage();
        assertFalse(longNumber.contains("`") || longNumber.contains("StreamReadConstraints"), longNumber);
        assertEquals("not valid JSON", Json.reason("Cannot map `java.lang.Object`"));
    }

    @Test
    void invalidUtf8IsRefusedNotReplaced() {
        // An overlong '/' (C0 AF), an encoded surrogate (ED A0 80), a stray continuation byte, a truncated sequence.
        for (byte[] bad : new byte[][] {bytes(0xC0, 0xAF), bytes(0xED, 0xA0, 0x80), bytes(0x80), bytes(0xE2, 0x82)}) {
            assertTrue(refused(concat("{\"a\": \"", bad, "\"}")).getMessage().contains("not valid UTF-8"));
        }
        // UTF-16, with and without its byte order mark, is not guessed at.
        refused("{\"a\": 1}".getBytes(StandardCharsets.UTF_16));
        refused("{\"a\": 1}".getBytes(StandardCharsets.UTF_16LE));
        // Four-byte UTF-8 is fine, and so is a UTF-8 byte order mark.
        assertEquals(
                "\uD83D\uDE00",
                Json.parse(concat("{\"a\": \"", bytes(0xF0, 0x9F, 0x98, 0x80), "\"}"))
                        .get("a")
                        .asText());
        assertEquals(
                1,
                Json.parse(concat("", bytes(0xEF, 0xBB, 0xBF), "{\"a\": 1}"))
                        .get("a")
                        .asInt());
    }

    @Test
    void aLoneSurrogateEscapeIsRefusedNamingWhere() {
        ApiError e = refused("{\"messages\": [{\"content\": \"x\\ud800y\"}]}".getBytes(StandardCharsets.UTF_8));
        assertTrue(e.getMessage().contains("messages[0].content"), e.getMessage());
        refused("{\"a\": \"\\udc00\"}".getBytes(StandardCharsets.UTF_8));
        refused("{\"\\ud800\": 1}".getBytes(StandardCharsets.UTF_8));
        refused("{\"a\": \"\\uD800\"}".getBytes(StandardCharsets.UTF_8));
        // beside text that is not ASCII, parsed from the decoded text
        refused("{\"a\": \"é\\ud800\"}".getBytes(StandardCharsets.UTF_8));
        // an escaped backslash before "ud800" is text, not an escape
        assertEquals(
                "\\ud800",
                Json.parse("{\"a\": \"\\\\ud800\"}".getBytes(StandardCharsets.UTF_8))
                        .get("a")
                        .asText());
        assertEquals(
                "\uD83D\uDE00",
                Json.parse("{\"a\": \"\\ud83d\\ude00\"}".getBytes(StandardCharsets.UTF_8))
                        .get("a")
                        .asText());
    }
}
