package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import forge.runtime.catalog.ModelCatalog;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The API's route table: each path with the action of each method it allows, and the doors that
 * own an error shape for their whole subtree (Anthropic's {@code /v1/messages}: a refusal of any
 * request there, a 404 or a 401 included, is in its shape). A path the table does not hold is a
 * 404; a method a path does not allow, a 405 naming those it does. The table is the one list of the
 * API's paths: the web UI asks it which paths are never its page.
 *
 * @param <S> what the actions act on (the server)
 */
final class Routes<S> {

    /** One request, as an action answers it. */
    record Exchange(
            Request request, Response response, Callback callback, ModelCatalog.RequestScope scope, String path) {}

    /** What a route does for one method. */
    interface Action<S> {
        void answer(S server, Exchange x);
    }

    /** A door's error body. */
    interface ErrorShape extends Function<ApiError, JsonNode> {}

    /** OpenAI's shape, the API's default: {@code {"error": {"message", "type", "param", "code"}}}. */
    static final ErrorShape OPENAI = ApiError::toJson;

    private final Map<String, Map<String, Action<S>>> exact = new LinkedHashMap<>();
    /** Paths under a prefix ({@code /v1/models/ID}); {@code true} where the rest is one segment. */
    private final Map<String, Map<String, Action<S>>> under = new LinkedHashMap<>();

    private final Map<String, Boolean> oneSegment = new LinkedHashMap<>();
    private final Map<String, ErrorShape> doors = new TreeMap<>();

    Routes<S> get(String path, Action<S> action) {
        return add("GET", path, action);
    }

    Routes<S> post(String path, Action<S> action) {
        return add("POST", path, action);
    }

    Routes<S> add(String method, String path, Action<S> action) {
        exact.computeIfAbsent(path, p -> new LinkedHashMap<>()).put(method, action);
        return this;
    }

    /**
     * {@code action} for {@code method} on every path under {@code prefix} (which ends with a
     * slash); with {@code oneSegment}, only where the rest holds no further slash.
     */
    Routes<S> under(String method, String prefix, boolean oneSegment, Action<S> action) {
        under.computeIfAbsent(prefix, p -> new LinkedHashMap<>()).put(method, action);
        this.oneSegment.put(prefix, oneSegment);
        return this;
    }

    /** The door at {@code base} answers its errors, on {@code base} and every path under it, in {@code shape}. */
    Routes<S> door(String base, ErrorShape shape) {
        doors.put(base, shape);
        return this;
    }

    /** The actions of {@code path} by method, or null for a path the table does not hold. */
    private Map<String, Action<S>> methods(String path) {
        Map<String, Action<S>> found = exact.get(path);
        if (found != null) {
            return found;
        }
        for (var e : under.entrySet()) {
            String prefix = e.getKey();
            if (path.startsWith(prefix)
                    && path.length() > prefix.length()
                    && !(oneSegment.get(prefix) && path.indexOf('/', prefix.length()) >= 0)) {
                return e.getValue();
            }
        }
        return null;
    }

    /** Whether the table holds {@code path}. */
    boolean holds(String path) {
        return methods(path) != null;
    }

    /** Runs the action of the request's method and path; a 404 or 405 when there is none. */
    void dispatch(S server, String method, Exchange x) {
        Map<String, Action<S>> methods = methods(x.path());
        if (methods == null) {
            throw ApiError.notFound("not_found", "no route for " + method + " " + x.path());
        }
        Action<S> action = methods.get(method);
        if (action == null) {
            throw new ApiError(
                    405,
                    "invalid_request_error",
                    "method_not_allowed",
                    null,
                    "method " + method + " is not allowed here; use " + String.join(" or ", methods.keySet()));
        }
        action.answer(server, x);
    }

    /** The error shape of the door {@code path} belongs to: OpenAI's, but where a door owns the subtree. */
    ErrorShape shape(String path) {
        for (var e : doors.entrySet()) {
            if (path.equals(e.getKey()) || path.startsWith(e.getKey() + "/")) {
                return e.getValue();
            }
        }
        return OPENAI;
    }
}
