package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoutesTest {

    private final List<String> answered = new ArrayList<>();
    private final Routes<List<String>> routes = new Routes<List<String>>()
            .get("/a", (log, x) -> log.add("GET /a"))
            .post("/a", (log, x) -> log.add("POST /a"))
            .under(
                    "GET",
                    "/items/",
                    true,
                    (log, x) -> log.add("item " + x.path().substring("/items/".length())))
            .under(
                    "GET",
                    "/deep/",
                    false,
                    (log, x) -> log.add("deep " + x.path().substring("/deep/".length())))
            .door("/anthropic", AnthropicMessages::error)
            .post("/anthropic", (log, x) -> log.add("POST /anthropic"));

    private void call(String method, String path) {
        routes.dispatch(answered, method, new Routes.Exchange(null, null, null, null, path));
    }

    @Test
    void eachPathRunsTheActionOfItsMethod() {
        call("GET", "/a");
        call("POST", "/a");
        call("GET", "/items/x1");
        call("GET", "/deep/org/model");
        assertEquals(List.of("GET /a", "POST /a", "item x1", "deep org/model"), answered);
    }

    @Test
    void anUnknownPathIsA404AndAnUnknownMethodA405NamingTheMethodsAllowed() {
        assertEquals(404, assertThrows(ApiError.class, () -> call("GET", "/b")).status());
        assertEquals(
                404,
                assertThrows(ApiError.class, () -> call("GET", "/items/x/y")).status(),
                "one segment only");
        assertEquals(
                404, assertThrows(ApiError.class, () -> call("GET", "/items/")).status());
        ApiError e = assertThrows(ApiError.class, () -> call("DELETE", "/a"));
        assertEquals(405, e.status());
        assertTrue(e.getMessage().endsWith("use GET or POST"), e.getMessage());
        assertTrue(answered.isEmpty());
    }

    @Test
    void aDoorOwnsTheErrorShapeOfItsWholeSubtree() {
        ApiError e = ApiError.notFound("not_found", "no");
        assertEquals("error", routes.shape("/anthropic").apply(e).get("type").asText());
        assertEquals(
                "not_found_error",
                routes.shape("/anthropic/batches")
                        .apply(e)
                        .get("error")
                        .get("type")
                        .asText());
        assertEquals(e.toJson(), routes.shape("/a").apply(e));
        assertEquals(e.toJson(), routes.shape("/anthropicx").apply(e));
    }

    @Test
    void theServersApiPathsAreTheTablesPaths() {
        for (String path : List.of(
                "/health",
                "/metrics",
                "/v1/messages/count_tokens",
                "/models/load",
                "/apply-template",
                "/detokenize",
                "/infill",
                "/rerank",
                "/v1/responses/resp_1",
                "/models")) {
            assertTrue(ForgeServer.apiPath(path), path);
        }
        assertFalse(ForgeServer.apiPath("/chat"));
        assertFalse(ForgeServer.apiPath("/healthz"));
    }
}
