package forge.http.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** The one configured Jackson mapper, and small helpers around it. */
final class Json {

    /** Requests nest far less than this; deeper input is refused before it costs stack. */
    static final int MAX_NESTING = 64;

    static final ObjectMapper MAPPER = JsonMapper.builder()
            .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            // One JSON value is the whole body: "{...}garbage" and two objects are malformed.
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

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
        // are, parsed from the bytes without a decoded copy; and where no surrogate is escaped (a
        // backslash, then ud) no string can hold one, so the walk below is skipped (an image's data
        // URI is most of such a body, and each pass over it costs about as much as the parse)
        int ascii = ascii(body);
        try {
            JsonNode node = ascii == NOT_ASCII ? MAPPER.readTree(utf8(body)) : MAPPER.readTree(body);
            if (node == null) {
                throw ApiError.badRequest(null, "the request body holds no JSON value");
            }
            String bad = ascii == ASCII_NO_SURROGATE_ESCAPE ? null : loneSurrogate(node, "");
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
     * {@link #NOT_ASCII} when a byte of {@code body} is not ASCII or is a NUL; else {@link #ASCII} when it has a
     * backslash followed by {@code ud} or {@code uD} (the start of every surrogate escape, or an
     * escaped backslash before such text: either way the strings are walked), else
     * {@link #ASCII_NO_SURROGATE_ESCAPE}.
     */
    private static int ascii(byte[] body) {
        boolean escape = false;
        for (int i = 0; i < body.length; i++) {
            byte b = body[i];
            if (b <= 0) {
                // a NUL too: none is valid in a JSON text, and from bytes Jackson would take NULs
                // for UTF-16 or UTF-32 and read them, where they are refused as invalid UTF-8
                return NOT_ASCII;
            }
            if (b == '\\' && i + 2 < body.length && body[i + 1] == 'u' && (body[i + 2] == 'd' || body[i + 2] == 'D')) {
                escape = true;
            }
        }
        return escape ? ASCII : ASCII_NO_SURROGATE_ESCAPE;
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
