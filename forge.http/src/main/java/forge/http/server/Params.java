package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.util.function.Predicate;

/**
 * The one reader of request parameters for every route: each value checked against its API's
 * type and range, each refusal a 400 naming the parameter by its path ({@code stream_options.include_usage},
 * {@code messages[2].content}). An absent parameter and an explicit {@code null} read alike as
 * absent, as OpenAI's SDKs send either.
 */
final class Params {

    private Params() {}

    /** The parameter's path inside {@code at} (empty for the body itself). */
    static String path(String at, String name) {
        return at.isEmpty() ? name : at + "." + name;
    }

    private static boolean absent(JsonNode v) {
        return v == null || v.isNull() || v.isMissingNode();
    }

    /**
     * The value at {@code name}, or null when absent; one that is not of the type {@code is} tests
     * for is refused: "'PARAM' must be {@code what}".
     */
    private static JsonNode typed(JsonNode object, String name, String at, Predicate<JsonNode> is, String what) {
        JsonNode v = object.get(name);
        if (absent(v)) {
            return null;
        }
        if (!is.test(v)) {
            String param = path(at, name);
            throw ApiError.badRequest(param, "'" + param + "' must be " + what);
        }
        return v;
    }

    /** An integer from {@code min} to {@code max}; a number outside them, or not whole, is refused as written. */
    static int integer(JsonNode object, String name, int fallback, int min, int max) {
        return (int) longInteger(object, name, "", fallback, min, max);
    }

    /** An integer from {@code min} to {@code max} at {@code at}; whole floats ({@code 4.0}) count as integers. */
    static long longInteger(JsonNode object, String name, String at, long fallback, long min, long max) {
        JsonNode v = object.get(name);
        if (absent(v)) {
            return fallback;
        }
        String param = path(at, name);
        BigInteger value;
        if (v.isIntegralNumber()) {
            value = v.bigIntegerValue();
        } else if (v.isNumber() && Double.isFinite(v.asDouble()) && v.asDouble() == Math.rint(v.asDouble())) {
            value = v.decimalValue().toBigInteger();
        } else {
            throw ApiError.badRequest(param, "'" + param + "' must be an integer");
        }
        if (value.compareTo(BigInteger.valueOf(min)) < 0 || value.compareTo(BigInteger.valueOf(max)) > 0) {
            throw ApiError.badRequest(
                    param, "'" + param + "' must be between " + min + " and " + max + ", got " + v.asText());
        }
        return value.longValue();
    }

    /** A 64-bit integer; {@code fallback} when absent. */
    static long int64(JsonNode object, String name, long fallback) {
        return longInteger(object, name, "", fallback, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /** A finite number from {@code min} to {@code max}. */
    static float number(JsonNode object, String name, float fallback, float min, float max) {
        JsonNode v = typed(object, name, "", n -> n.isNumber() && Double.isFinite(n.asDouble()), "a number");
        if (v == null) {
            return fallback;
        }
        double value = v.asDouble();
        if (value < min || value > max) {
            throw ApiError.badRequest(
                    name, "'" + name + "' must be between " + min + " and " + max + ", got " + v.asText());
        }
        return (float) value;
    }

    static boolean bool(JsonNode object, String name, boolean fallback) {
        return bool(object, name, "", fallback);
    }

    static boolean bool(JsonNode object, String name, String at, boolean fallback) {
        JsonNode v = typed(object, name, at, JsonNode::isBoolean, "true or false");
        return v == null ? fallback : v.asBoolean();
    }

    /** A string of at most {@code maxLength} characters, or null when absent. */
    static String string(JsonNode object, String name, String at, int maxLength) {
        JsonNode v = typed(object, name, at, JsonNode::isTextual, "a string");
        if (v == null) {
            return null;
        }
        if (v.asText().length() > maxLength) {
            String param = path(at, name);
            throw ApiError.badRequest(param, "'" + param + "' is longer than " + maxLength + " characters");
        }
        return v.asText();
    }

    /** A string that must be there, of any length. */
    static String required(JsonNode object, String name, String at) {
        String s = string(object, name, at, Integer.MAX_VALUE);
        if (s == null) {
            String param = path(at, name);
            throw ApiError.badRequest(param, param + " is required");
        }
        return s;
    }

    /** {@code node} when it is an array, an empty one when it is absent or null; anything else is refused as {@code param}. */
    static JsonNode array(JsonNode node, String param) {
        if (absent(node)) {
            return Json.MAPPER.createArrayNode();
        }
        if (!node.isArray()) {
            throw ApiError.badRequest(param, "'" + param + "' must be an array");
        }
        return node;
    }

    /** The object at {@code name}, or null when absent; anything else is refused. */
    static JsonNode object(JsonNode object, String name, String at) {
        return typed(object, name, at, JsonNode::isObject, "an object");
    }
}
