package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.assertParam;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.api.sampler.SamplerProvider;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sampler plugin built by a third party against the forge.api jar alone, dropped into the
 * plugins folder: a request's {@code samplers} puts its stages into the chain, with their
 * parameters from the body; an unknown stage or a bad parameter is a 400 naming it (in OpenAI's
 * shape, and in Anthropic's on {@code /v1/messages}); a stage that throws fails its own request,
 * named, and the server goes on.
 */
class ThirdPartySamplerTest {

    @TempDir
    static Path work;

    @AutoClose
    static TestServer server;

    static Http http;

    @BeforeAll
    static void start() throws Exception {
        Path plugins = work.resolve("plugins");
        ThirdPartyTemplateTest.onePlugin(
                work, "com.example.ban", SamplerProvider.class, "BanStages", plugins.resolve("ban.jar"), """
                package com.example.ban;

                import forge.api.sampler.*;
                import java.util.List;

                public final class BanStages implements SamplerProvider {
                    public List<StageInfo> stages() {
                        return List.of(
                                new StageInfo("ban_top", "bans the most likely candidates",
                                        List.of(StageParameter.integer("ban_top_count", 1, 1, 10, "how many"))),
                                new StageInfo("explode", "throws while sampling", List.of()));
                    }
                    public SamplerStage create(String stage, StageArguments args) {
                        if (stage.equals("explode")) {
                            return c -> { throw new IllegalStateException("kaboom"); };
                        }
                        int count = (int) args.integer("ban_top_count");
                        if (count == 7) {
                            throw new IllegalArgumentException("7 is unlucky");
                        }
                        return c -> {
                            for (int k = 0; k < count; k++) {
                                int best = -1;
                                for (int i = 0; i < c.size(); i++) {
                                    if (c.logit(i) != Float.NEGATIVE_INFINITY && (best < 0 || c.logit(i) > c.logit(best))) {
                                        best = i;
                                    }
                                }
                                c.ban(best);
                            }
                        };
                    }
                }
                """);
        server = ThirdPartyTemplateTest.servePlugins(plugins, "-c 1024 -np 1 -t 2");
        http = server.http();
    }

    private static String chat(String extra) {
        return """
                {"model": "tiny", "max_tokens": 6, "temperature": 0, %s
                 "messages": [{"role": "user", "content": "count with me"}]}""".formatted(extra);
    }

    private static String content(HttpResponse<String> r) throws Exception {
        return ok(r).get("choices").get(0).get("message").get("content").asText();
    }

    @Test
    void aNamedPluginStageChangesTheOutputAndItsParameterIsHandled() throws Exception {
        String greedy = content(http.post("/v1/chat/completions", chat("")));
        HttpResponse<String> r = http.post("/v1/chat/completions", chat("""
                "samplers": ["penalties", "ban_top", "top_k", "temperature"], "ban_top_count": 2,"""));
        String banned = content(r);
        assertNotEquals(greedy, banned, "with its two best tokens banned at every step, greedy writes something else");
        assertFalse(
                r.headers().firstValue("X-Forge-Ignored-Params").orElse("").contains("samplers"),
                "samplers is no longer ignored: " + r.headers().map());
        assertFalse(r.headers().firstValue("X-Forge-Ignored-Params").orElse("").contains("ban_top_count"));
        // The same chain without the plugin stage is the greedy answer: the order is the request's.
        assertEquals(
                greedy,
                content(http.post(
                        "/v1/chat/completions", chat("""
                "samplers": "ekt",""")))); // llama.cpp's letters: penalties, top_k, temperature
        // A stage's parameter without its stage has no effect, and says so.
        HttpResponse<String> alone = http.post("/v1/chat/completions", chat("\"ban_top_count\": 2,"));
        assertEquals(greedy, content(alone));
        assertEquals(
                "ban_top_count",
                alone.headers().firstValue("X-Forge-Ignored-Params").orElse(""));
        // Completions read it too.
        HttpResponse<String> completion = http.post("/v1/completions", """
                {"model": "tiny", "prompt": "one two", "max_tokens": 4, "temperature": 0, "samplers": ["ban_top"]}""");
        assertEquals(200, completion.statusCode(), completion.body());
    }

    @Test
    void propsListsThePluginStagesWithTheirParameters() throws Exception {
        var props = ok(http.get("/props"));
        java.util.Map<String, JsonNode> stages = new java.util.LinkedHashMap<>();
        props.get("sampler_stages")
                .forEach(stage -> stages.put(stage.get("name").asText(), stage));
        assertEquals(
                java.util.Set.of("loop_guard", "ban_top", "explode"),
                stages.keySet(),
                "the built-in stage and the plugin's");
        assertEquals(
                "forge.sampler.loopguard",
                stages.get("loop_guard").get("module").asText());
        var ban = stages.get("ban_top");
        assertEquals("com.example.ban", ban.get("module").asText());
        assertEquals("bans the most likely candidates", ban.get("description").asText());
        var count = ban.get("parameters").get(0);
        assertEquals("ban_top_count", count.get("name").asText());
        assertEquals("integer", count.get("type").asText());
        assertEquals(1, count.get("default").asInt());
        assertEquals(0, stages.get("explode").get("parameters").size());
    }

    @Test
    void anUnknownStageOrABadParameterIsA400NamingIt() throws Exception {
        JsonNode e = JSON.readTree(http.post("/v1/chat/completions", chat("\"samplers\": [\"top_k\", \"nope\"],"))
                        .body())
                .get("error");
        assertEquals("samplers", e.get("param").asText());
        assertTrue(
                e.get("message").asText().contains("'nope'")
                        && e.get("message").asText().contains("ban_top"),
                e.toString());

        HttpResponse<String> range =
                http.post("/v1/chat/completions", chat("\"samplers\": [\"ban_top\"], \"ban_top_count\": 11,"));
        assertParam(range, "ban_top_count");

        HttpResponse<String> refused =
                http.post("/v1/chat/completions", chat("\"samplers\": [\"ban_top\"], \"ban_top_count\": 7,"));
        assertEquals(400, refused.statusCode());
        JsonNode error = JSON.readTree(refused.body()).get("error");
        assertEquals("ban_top", error.get("param").asText());
        assertTrue(error.get("message").asText().contains("7 is unlucky"), error.toString());

        HttpResponse<String> letter = http.post("/v1/chat/completions", chat("\"samplers\": \"kq\","));
        assertEquals(400, letter.statusCode());
        assertTrue(letter.body().contains("'q'"), letter.body());

        HttpResponse<String> builtin = http.post("/v1/chat/completions", chat("\"dry_sequence_breakers\": [],"));
        assertParam(builtin, "dry_sequence_breakers");

        // Anthropic's shape on /v1/messages.
        HttpResponse<String> messages = http.post("/v1/messages", """
                {"model": "tiny", "max_tokens": 4, "samplers": ["nope"], "messages": [{"role": "user", "content": "hi"}]}""");
        assertEquals(400, messages.statusCode());
        JsonNode anthropic = JSON.readTree(messages.body());
        assertEquals("error", anthropic.get("type").asText(), messages.body());
        assertEquals("invalid_request_error", anthropic.get("error").get("type").asText());
        assertTrue(anthropic.get("error").get("message").asText().contains("'nope'"), messages.body());
    }

    @Test
    void aStageThatThrowsFailsItsRequestByNameAndTheServerGoesOn() throws Exception {
        HttpResponse<String> r = http.post("/v1/chat/completions", chat("\"samplers\": [\"explode\"],"));
        assertEquals(500, r.statusCode(), r.body());
        JsonNode e = JSON.readTree(r.body()).get("error");
        assertEquals("sampler_stage_failed", e.get("code").asText(), r.body());
        assertTrue(
                e.get("message").asText().contains("'explode'")
                        && e.get("message").asText().contains("kaboom"),
                r.body());
        // Anthropic's shape for the same failure.
        HttpResponse<String> m = http.post("/v1/messages", """
                {"model": "tiny", "max_tokens": 4, "samplers": ["explode"], "messages": [{"role": "user", "content": "hi"}]}""");
        assertEquals(500, m.statusCode(), m.body());
        assertEquals(
                "api_error", JSON.readTree(m.body()).get("error").get("type").asText(), m.body());
        // The engine and the model serve the next request.
        assertEquals(200, http.post("/v1/chat/completions", chat("")).statusCode());
        assertTrue(
                JSON.readTree(http.get("/health").body()).get("status").asText().equals("ok"));
    }

    /** The built-in loop_guard stage, through the server: no bigram of the output repeats. */
    @Test
    void theLoopGuardStageStopsARepeatedRun() throws Exception {
        String body = """
                {"model": "tiny", "max_tokens": 40, "temperature": 0, "ignore_eos": true, "logprobs": true, %s
                 "messages": [{"role": "user", "content": "again and again"}]}""";
        java.util.List<String> plain = tokens(http.post("/v1/chat/completions", body.formatted("")));
        assertTrue(repeatsABigram(plain), "greedy on random weights loops: " + plain);
        java.util.List<String> guarded = tokens(http.post("/v1/chat/completions", body.formatted("""
                "samplers": ["penalties", "loop_guard"], "loop_guard_n": 2, "loop_guard_repeats": 2, "loop_guard_window": 0,""")));
        assertEquals(40, guarded.size());
        assertFalse(repeatsABigram(guarded), guarded.toString());
    }

    private static java.util.List<String> tokens(HttpResponse<String> r) throws Exception {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (JsonNode t : ok(r).get("choices").get(0).get("logprobs").get("content")) {
            out.add(t.get("bytes").toString());
        }
        return out;
    }

    private static boolean repeatsABigram(java.util.List<String> tokens) {
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (int i = 0; i + 1 < tokens.size(); i++) {
            if (!seen.add(tokens.get(i) + " " + tokens.get(i + 1))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Under {@code --strict}, {@code count_tokens} reads a body as {@code /v1/messages} does, the
     * plugin stage's parameter included: what one accepts, the other does not refuse.
     */
    @Test
    void underStrictCountTokensAcceptsWhatMessagesAccepts() throws Exception {
        try (TestServer strict =
                ThirdPartyTemplateTest.servePlugins(work.resolve("plugins"), "-c 1024 -np 1 -t 2 --strict")) {
            String body = """
                    {"model": "tiny", "max_tokens": 3, "temperature": 0, "samplers": ["ban_top", "temperature"], "ban_top_count": 2,
                     "messages": [{"role": "user", "content": "count with me"}]}""";
            HttpResponse<String> messages = strict.http().post("/v1/messages", body);
            assertEquals(200, messages.statusCode(), messages.body());
            HttpResponse<String> count = strict.http().post("/v1/messages/count_tokens", body);
            assertEquals(200, count.statusCode(), count.body());
            assertTrue(ok(count).get("input_tokens").asInt() > 0);
            // A field neither reads is refused by both, in Anthropic's shape.
            String unknown = body.replace("\"ban_top_count\"", "\"ban_top_cnt\"");
            for (String path : new String[] {"/v1/messages", "/v1/messages/count_tokens"}) {
                HttpResponse<String> refused = strict.http().post(path, unknown);
                assertEquals(400, refused.statusCode(), path + ": " + refused.body());
                assertEquals(
                        "invalid_request_error",
                        JSON.readTree(refused.body()).get("error").get("type").asText());
                assertTrue(refused.body().contains("ban_top_cnt"), refused.body());
            }
        }
    }
}
