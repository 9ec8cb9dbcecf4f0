package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Random;
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

    private static String base64(int bytes, long seed) {
        byte[] b = new byte[bytes];
        new Random(seed).nextBytes(b);
        return Base64.getEncoder().encodeToString(b);
    }

    /**
     * An image's data URI and other long plain strings are taken aside from Jackson's parser; the tree
     * is Jackson's own, including a long name, a long string with an escape, and client text that
     * starts as the stand-ins do.
     */
    @Test
    void longPlainStringsAreTakenAsTheirBytesAndTheTreeIsJacksons() throws Exception {
        String image = base64(30_000, 1);
        String other = base64(9_000, 2);
        String body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\","
                + "\"image_url\":{\"url\":\"data:image/png;base64," + image + "\"}}]}],\n"
                + "\"" + other + "\" : 1, \"escaped\": \"" + other + "\\n\", \"control\": \"" + other + "\",\n"
                + "\"list\": [ \"" + other + "\" , 2, \"\\u0000forge-long-string-0\", \"\\u0000forge-long-string-\"],"
                + "\"short\":\"" + "x".repeat(Json.LONG_STRING - 1) + "\"}";
        byte[] bytes = body.getBytes(StandardCharsets.US_ASCII);
        assertEquals(3, Json.longStrings(bytes), "the data URI, \"control\" and the list's first");
        assertEquals(Json.MAPPER.readTree(bytes), Json.parse(bytes));
        assertEquals(
                "data:image/png;base64," + image,
                Json.parse(bytes).at("/messages/0/content/0/image_url/url").textValue());
        assertEquals(
                0, Json.longStrings(("{\"a\":\"" + other + "\u00e9\"}").getBytes(StandardCharsets.UTF_8)), "not ASCII");
    }

    /** A body Jackson refuses is refused as it was sent, its line and column those of the client's bytes. */
    @Test
    void aMalformedBodyWithLongStringsIsRefusedWhereItIsWrong() {
        String image = base64(30_000, 3);
        byte[] tab = ("{\"a\":\"" + image + "\",\n\"b\": \"" + image + "\t\"}").getBytes(StandardCharsets.US_ASCII);
        assertEquals(1, Json.longStrings(tab));
        String control = refused(tab).getMessage();
        assertTrue(control.contains("line 2, column 40007"), control);
        byte[] bad = ("{\"a\":\"" + image + "\",\n \"b\": tru}").getBytes(StandardCharsets.US_ASCII);
        assertEquals(1, Json.longStrings(bad));
        String message = refused(bad).getMessage();
        assertTrue(message.contains("line 2, column"), message);
        assertTrue(message.contains("tru"), message);
    }

    /**
     * The scan reads eight bytes at a time: an escape, an escaped quote, a control character or a
     * non-ASCII character at any place in a word ends the string's plain run there, and the tree is
     * still Jackson's (or the body is refused as Jackson refuses it).
     */
    @Test
    void whatEndsAPlainRunIsFoundAtEveryPlaceInAWord() throws Exception {
        String a = "A".repeat(Json.LONG_STRING + 24);
        for (int at = 0; at < 24; at++) {
            String head = a.substring(0, at);
            String tail = a.substring(at);
            for (String stop : new String[] {"\\n", "\\\"", "\\u00e9", "\\ud83d\\ude00", "\u00e9"}) {
                byte[] body = ("{\"s\":\"" + head + stop + tail + "\"}").getBytes(StandardCharsets.UTF_8);
                assertEquals(0, Json.longStrings(body), stop + " at " + at);
                assertEquals(Json.MAPPER.readTree(body), Json.parse(body), stop + " at " + at);
            }
            byte[] tab = ("{\"s\":\"" + head + "\t" + tail + "\"}").getBytes(StandardCharsets.US_ASCII);
            assertEquals(0, Json.longStrings(tab));
            assertTrue(refused(tab).getMessage().contains("CTRL-CHAR"));
            byte[] two = ("{\"s\":\"" + head + "\", \"t\": \"" + tail + "\"}").getBytes(StandardCharsets.US_ASCII);
            assertEquals(1, Json.longStrings(two), "the second string, " + tail.length() + " bytes");
            assertEquals(tail, Json.parse(two).get("t").textValue());
        }
    }
}
