package forge.http.server;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * An error answered in OpenAI's shape: {@code {"error":{"message","type","param","code"}}}.
 * Thrown anywhere in request handling; the router turns it into the response.
 */
public final class ApiError extends RuntimeException {

    private final int status;
    private final String type;
    private final String param;
    private final String code;

    public ApiError(int status, String type, String code, String param, String message) {
        super(message);
        this.status = status;
        this.type = type;
        this.code = code;
        this.param = param;
    }

    /** 400: the request is malformed or a parameter is invalid; {@code param} names it. */
    public static ApiError badRequest(String param, String message) {
        return new ApiError(400, "invalid_request_error", param == null ? null : "invalid_value", param, message);
    }

    public static ApiError notFound(String code, String message) {
        return new ApiError(404, "invalid_request_error", code, null, message);
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    /** The error as JSON. */
    public ObjectNode toJson() {
        ObjectNode root = Json.MAPPER.createObjectNode();
        ObjectNode error = root.putObject("error");
        error.put("message", getMessage());
        error.put("type", type);
        if (param == null) {
            error.putNull("param");
        } else {
            error.put("param", param);
        }
        if (code == null) {
            error.putNull("code");
        } else {
            error.put("code", code);
        }
        return root;
    }
}
