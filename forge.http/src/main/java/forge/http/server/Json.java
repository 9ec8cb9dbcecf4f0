package forge.http.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;

/** The one configured Jackson mapper, and small helpers around it. */
final class Json {

    /** Requests nest far less than this; deeper input is refused before it costs stack. */
    static final int MAX_NESTING = 64;

    static final ObjectMapper MAPPER = JsonMapper.builder()
            .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            // One JSON value is the whole body: "{...}garbage" and two objects are malformed.
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /** A long string's stand-in (readAscii): its prefix as its text is read, and as it is written in JSON. */
    private static final String STAND_IN;

    private static final byte[] STAND_IN_JSON;

    static {
        String nonce = Long.toHexString(new SecureRandom().nextLong());
        STAND_IN = "\u0000forge-long-string-" + nonce + "-";
        STAND_IN_JSON = ("\\u0000forge-long-string-" + nonce + "-").getBytes(StandardCharsets.US_ASCII);
    }

    static {
        MAPPER.getFactory()
                .setStreamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(MAX_NESTING)
                        .build());
    }

    private Json() {}

    /**
     * Parses a request body: UTF-8 (RFC 8259), strictly, so overlong forms, encoded surrogates and
     * UTF-16 are refused rather than replaced or guessed at; one JSON object and nothing after it;
     * no string with a lone surrogate escape ({@code "\ud800"}), which no UTF-8 text can hold.
     * Malformed input is a 400 that says where.
     */
    static JsonNode parse(byte[] body) {
        if (body.length == 0) {
            throw ApiError.badRequest(null, "the request body is empty; expected a JSON object");
        }
        JsonNode node = parseValue(body);
        if (!node.isObject()) {
            throw ApiError.badRequest(null, "the request body must be a JSON object");
        }
        return node;
    }

    /**
     * A body of any JSON value (an array, for {@code POST /lora-adapters}), checked as
     * {@link #parse} checks an object: valid UTF-8, no lone surrogate, Jackson's limits.
     */
    static JsonNode parseValue(byte[] body) {
        if (body.length == 0) {
            throw ApiError.badRequest(null, "the request body is empty; expected JSON");
        }
        // Most bodies are ASCII (JSON escapes the rest, and an image is base64): valid UTF-8 as they
        // are, parsed from the bytes without a decoded copy, their long plain strings (an image's data
        // URI) taken aside (Scan); and where no surrogate is escaped no string can hold one, so the
        // walk below is skipped (each pass over an image costs about as much as the parse)
        Scan scan = Scan.of(body);
        try {
            JsonNode node = scan.kind == NOT_ASCII ? MAPPER.readTree(utf8(body)) : readAscii(body, scan);
            if (node == null) {
                throw ApiError.badRequest(null, "the request body holds no JSON value");
            }
            String bad = scan.kind == ASCII_NO_SURROGATE_ESCAPE ? null : loneSurrogate(node, "");
            if (bad != null) {
                throw ApiError.badRequest(
                        bad.isEmpty() ? null : bad,
                        "the request body holds a lone UTF-16 surrogate" + (bad.isEmpty() ? "" : " in '" + bad + "'")
                                + ": it is not Unicode text");
            }
            return node;
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null
                    ? ""
                    : " at line " + e.getLocation().getLineNr() + ", column "
                            + e.getLocation().getColumnNr();
            throw ApiError.badRequest(null, "malformed JSON" + where + ": " + reason(e.getOriginalMessage()));
        } catch (IOException e) {
            // reading an array in memory does no I/O: what else Jackson throws (a CharConversionException
            // for a text it takes for UTF-32) is about the input
            throw ApiError.badRequest(null, "malformed JSON: not valid JSON");
        }
    }

    /**
     * Jackson's account of what is wrong, less the parts that name its Java API: a limit's getter
     * ({@code "... exceeds the maximum allowed (64, from `StreamReadConstraints.getMaxNestingDepth()`)"})
     * or the feature that would allow it ({@code "Non-standard token 'NaN': enable `JsonReadFeature...` to allow"}).
     * What still names Java types after that is replaced as a whole.
     */
    static String reason(String jackson) {
        if (jackson.startsWith("Trailing token")) {
            return "there is more after the JSON object";
        }
        String why = jackson.replaceAll(", from `[^`]*`", "").replaceAll(": enable `[^`]*` to allow", "");
        if (why.contains("`") || why.contains("com.fasterxml") || why.contains("java.")) {
            return "not valid JSON";
        }
        return why;
    }

    private static final int NOT_ASCII = 0;
    private static final int ASCII = 1;
    private static final int ASCII_NO_SURROGATE_ESCAPE = 2;

    /**
     * A string value this long or longer, with no escape and no control character, is not given to
     * Jackson's parser: its bytes are its text already (see {@link Scan}).
     */
    static final int LONG_STRING = 8 * 1024;

    /**
     * What one pass over a body found: its {@code kind}, {@link #NOT_ASCII} when a byte is not ASCII
     * or is a NUL, else {@link #ASCII} when a string holds an escape of a surrogate (a backslash, {@code u},
     * then {@code d} or {@code D}: the strings are then walked), else {@link #ASCII_NO_SURROGATE_ESCAPE};
     * and in an ASCII body, the {@code [start, end)} byte ranges of the long plain string values: at
     * least {@link #LONG_STRING} bytes between their quotes, no backslash, no control character, not a
     * name (no colon follows). Those are an image's base64 and little else; a plain string's text is
     * its bytes, so it is taken with one copy instead of Jackson's character-by-character read (on a
     * JIT that stops at C1, most of the time a returning image turn spends before the model).
     */
    private record Scan(int kind, int[] spans, int count) {

        private static final VarHandle LONGS =
                MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
        private static final long ONES = 0x0101010101010101L;

        static Scan of(byte[] body) {
            int n = body.length;
            boolean surrogate = false;
            int[] spans = new int[0];
            int count = 0;
            for (int i = 0; i < n; i++) {
                byte b = body[i];
                if (b <= 0) {
                    // a NUL too: none is valid in a JSON text, and from bytes Jackson would take NULs
                    // for UTF-16 or UTF-32 and read them, where they are refused as invalid UTF-8
                    return new Scan(NOT_ASCII, spans, 0);
                }
                if (b != '"') {
                    continue; // outside strings: structure, names' quotes aside
                }
                int start = i + 1;
                boolean plain = true;
                for (i = plainRun(body, start); i < n && body[i] != '"'; i = plainRun(body, i)) {
                    b = body[i];
                    if (b <= 0) {
                        return new Scan(NOT_ASCII, spans, 0);
                    }
                    plain = false;
                    if (b == '\\' && i + 1 < n) {
                        byte c = body[i + 1];
                        if (c <= 0) {
                            return new Scan(NOT_ASCII, spans, 0);
                        }
                        surrogate |= c == 'u' && i + 2 < n && (body[i + 2] == 'd' || body[i + 2] == 'D');
                        i++; // the escaped character is not the string's end
                    }
                    i++;
                }
                if (plain && i < n && i - start >= LONG_STRING && !followedByColon(body, i + 1)) {
                    if (2 * count == spans.length) {
                        spans = Arrays.copyOf(spans, Math.max(8, 2 * spans.length));
                    }
                    spans[2 * count] = start;
                    spans[2 * count + 1] = i;
                    count++;
                }
            }
            return new Scan(surrogate ? ASCII : ASCII_NO_SURROGATE_ESCAPE, spans, count);
        }

        /**
         * The index of the first byte at or after {@code i} that is a quote, a backslash, a control
         * character or not ASCII ({@code body.length} if none): eight bytes at a time, tested together
         * (a byte equal to one of two values, or below 0x20, or with its high bit set), as a byte
         * loop on C1 costs a few times more than Jackson's own parse of an image.
         */
        private static int plainRun(byte[] body, int i) {
            int n = body.length;
            for (; i + 8 <= n; i += 8) {
                long x = (long) LONGS.get(body, i);
                long quote = x ^ 0x2222222222222222L;
                long backslash = x ^ 0x5C5C5C5C5C5C5C5CL;
                long stop = ((quote - ONES) & ~quote)
                        | ((backslash - ONES) & ~backslash)
                        | ((x - 0x2020202020202020L) & ~x)
                        | x;
                if ((stop & 0x8080808080808080L) != 0) {
                    break;
                }
            }
            for (; i < n; i++) {
                byte b = body[i];
                if (b < 0x20 || b == '"' || b == '\\') {
                    return i;
                }
            }
            return n;
        }

        private static boolean followedByColon(byte[] body, int from) {
            for (int i = from; i < body.length; i++) {
                byte b = body[i];
                if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
                    return b == ':';
                }
            }
            return false;
        }
    }

    /**
     * Parses an ASCII body. Its long plain strings ({@link Scan}) are each replaced by a short
     * stand-in before Jackson reads it, and a node factory puts each one's text back where its
     * stand-in is read: the tree is the one Jackson would build from {@code body}, with each long
     * string made by one copy of its bytes. A stand-in starts with a NUL and this process's random
     * nonce, so no text a client sends is taken for one. A body Jackson refuses is read again as it
     * was sent, so that the error names its own line and column.
     */
    private static JsonNode readAscii(byte[] body, Scan scan) throws IOException {
        if (scan.count == 0) {
            return MAPPER.readTree(body);
        }
        var out = new ByteArrayOutputStream(body.length / 64 + 64 * scan.count);
        int from = 0;
        for (int k = 0; k < scan.count; k++) {
            out.write(body, from, scan.spans[2 * k] - from);
            out.write(STAND_IN_JSON, 0, STAND_IN_JSON.length);
            byte[] index = Integer.toString(k).getBytes(StandardCharsets.US_ASCII);
            out.write(index, 0, index.length);
            from = scan.spans[2 * k + 1];
        }
        out.write(body, from, body.length - from);
        try {
            return MAPPER.reader().with(new LongStrings(body, scan)).readTree(out.toByteArray());
        } catch (JsonProcessingException e) {
            return MAPPER.readTree(body);
        }
    }

    /** How many of {@code body}'s strings are long and plain ({@link Scan}): those Jackson's parser does not read. */
    static int longStrings(byte[] body) {
        Scan scan = Scan.of(body);
        return scan.kind == NOT_ASCII ? 0 : scan.count;
    }

    /** The default node factory, but for the stand-ins of long strings: each one's text from the body. */
    private static final class LongStrings extends JsonNodeFactory {

        private final transient byte[] body;
        private final transient Scan scan;

        LongStrings(byte[] body, Scan scan) {
            super(false);
            this.body = body;
            this.scan = scan;
        }

        @Override
        public TextNode textNode(String text) {
            int k = text == null || !text.startsWith(STAND_IN) ? -1 : standIn(text);
            if (k < 0) {
                return super.textNode(text);
            }
            int start = scan.spans[2 * k];
            return TextNode.valueOf(
                    new String(body, start, scan.spans[2 * k + 1] - start, StandardCharsets.ISO_8859_1));
        }

        /** The index a stand-in names, or -1 when {@code text} only starts like one. */
        private int standIn(String text) {
            int k = 0;
            for (int i = STAND_IN.length(); i < text.length(); i++) {
                char c = text.charAt(i);
                if (c < '0' || c > '9' || k > scan.count) {
                    return -1;
                }
                k = 10 * k + (c - '0');
            }
            return text.length() > STAND_IN.length() && k < scan.count ? k : -1;
        }
    }

    private static String utf8(byte[] body) {
        // A UTF-8 byte order mark may be ignored (RFC 8259 8.1); a UTF-16 one is invalid UTF-8.
        int start = body.length >= 3 && (body[0] & 0xFF) == 0xEF && (body[1] & 0xFF) == 0xBB && (body[2] & 0xFF) == 0xBF
                ? 3
                : 0;
        var in = ByteBuffer.wrap(body, start, body.length - start);
        var out = CharBuffer.allocate(body.length);
        var result = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(in, out, true);
        if (result.isError()) {
            throw ApiError.badRequest(null, "the request body is not valid UTF-8 (at byte " + in.position() + ")");
        }
        return out.flip().toString();
    }

    /** The path of a string holding a lone surrogate ("" for the body itself), or null when there is none. */
    private static String loneSurrogate(JsonNode node, String at) {
        if (node.isTextual()) {
            return hasLoneSurrogate(node.textValue()) ? at : null;
        }
        if (node.isObject()) {
            var fields = node.properties().iterator();
            while (fields.hasNext()) {
                var e = fields.next();
                String path = at.isEmpty() ? e.getKey() : at + "." + e.getKey();
                if (hasLoneSurrogate(e.getKey())) {
                    return path;
                }
                String bad = loneSurrogate(e.getValue(), path);
                if (bad != null) {
                    return bad;
                }
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                String bad = loneSurrogate(node.get(i), at + "[" + i + "]");
                if (bad != null) {
                    return bad;
                }
            }
        }
        return null;
    }

    private static boolean hasLoneSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    return true;
                }
            } else if (Character.isLowSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    static byte[] bytes(JsonNode node) {
        try {
            return MAPPER.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static String string(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
