package forge.http.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.ForgeException;
import forge.api.SamplerStageException;
import forge.api.SamplingException;
import forge.runtime.engine.EngineException;

/**
 * An error of request handling: its status, OpenAI's type and code, the parameter at fault and a
 * message. Thrown anywhere in request handling; the router turns it into the response, in
 * OpenAI's shape ({@link #toJson}, {@code {"error":{"message","type","param","code"}}}) or in the
 * shape of the route's own API (Anthropic's, on {@code /v1/messages}).
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

    /** An engine's refusal (before anything was generated). */
    public static ApiError of(EngineException e) {
        return switch (e.code()) {
            case CONTEXT_LENGTH_EXCEEDED ->
                new ApiError(400, "invalid_request_error", "context_length_exceeded", "messages", e.getMessage());
            case INVALID_LOGIT_BIAS ->
                new ApiError(400, "invalid_request_error", "invalid_value", "logit_bias", e.getMessage());
            case QUEUE_FULL -> new ApiError(503, "server_error", "queue_full", null, e.getMessage() + "; retry later");
            case UNAVAILABLE -> new ApiError(503, "server_error", "unavailable", null, e.getMessage());
        };
    }

    /** A generation's failure: the request's own fault (400) or the server's (500). */
    public static ApiError failure(ForgeException e) {
        if (e instanceof EngineException ee) {
            return of(ee);
        }
        if (e instanceof SamplerStageException s) {
            // A plugin's stage failed on a valid request: the server's fault, named.
            return new ApiError(500, "server_error", "sampler_stage_failed", null, s.getMessage());
        }
        if (e instanceof SamplingException) {
            // The request's grammar or logit biases allowed no token: its fault, and only its own.
            return new ApiError(400, "invalid_request_error", "no_allowed_token", null, e.getMessage());
        }
        return new ApiError(500, "server_error", "generation_failed", null, "generation failed: " + e.getMessage());
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    /** OpenAI's error type, such as {@code invalid_request_error}. */
    public String type() {
        return type;
    }

    /** The parameter at fault, or null. */
    public String param() {
        return param;
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
