package forge.http.server;

import java.nio.ByteBuffer;
import java.util.Locale;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * The errors Jetty answers itself (a request line or header it cannot parse, a header block over
 * its limit, a failure outside the router) in OpenAI's JSON shape instead of Jetty's HTML page.
 * The message is the status's reason: never the exception, whose text names Java classes.
 */
final class JsonErrorHandler extends ErrorHandler {

    @Override
    protected void generateResponse(
            Request request, Response response, int code, String message, Throwable cause, Callback callback) {
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, ByteBuffer.wrap(body(code)), callback);
    }

    // Jetty 12.1 still calls this for a request it could not parse (there is no Request to hand to
    // generateResponse), though it marks it for removal: kept until Jetty offers the replacement.
    @SuppressWarnings("removal")
    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        fields.put(HttpHeader.CONTENT_TYPE, "application/json");
        return ByteBuffer.wrap(body(status));
    }

    static byte[] body(int status) {
        String reason = HttpStatus.getMessage(status);
        ApiError error = new ApiError(
                status,
                status >= 500 ? "server_error" : "invalid_request_error",
                reason.toLowerCase(Locale.ROOT).replace(' ', '_'),
                null,
                reason);
        return Json.bytes(error.toJson());
    }
}
