package forge.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Recorded streams of both servers, fed as if each event arrived 10 ms after the previous one. */
class ChatStreamTest {

    static String resource(String name) throws IOException {
        try (InputStream in = ChatStreamTest.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("missing test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Replays a recorded stream: event k arrives at (k + 1) * 10 ms. */
    static Completion replay(String stream, int status) {
        ChatStream s = new ChatStream(0);
        List<String> events = SseParserTest.events(stream);
        long t = 0;
        for (String e : events) {
            t += 10_000_000L;
            s.event(e, t);
        }
        return s.result(status, t + 1_000_000L);
    }

    @Test
    void llamaServerStream() throws IOException {
        // role chunk (content null), content chunks, finish chunk, usage chunk with empty choices, [DONE]
        String stream = resource("llama-server-stream.txt");
        Completion c = replay(stream, 200);
        assertTrue(c.ok(), c.error());
        assertTrue(c.usageReported());
        int chunks = countContentChunks(stream);
        assertEquals(chunks, c.contentChunks());
        assertEquals(usage(stream, "completion_tokens"), c.completionTokens());
        assertEquals(usage(stream, "prompt_tokens"), c.promptTokens());
        assertEquals(20.0, c.ttftMs(), 1e-9); // the 2nd event is the first content
        assertEquals((chunks - 1) * 10.0, c.decodeMs(), 1e-9);
        assertEquals(53.39598462195643, c.serverDecodeTps(), 1e-9, "the server's own timings.predicted_per_second");
    }

    @Test
    void forgeStream() throws IOException {
        // the opening chunk has content "" (not a token), then content, finish+timings, usage, [DONE]
        String stream = resource("forge-stream.txt");
        Completion c = replay(stream, 200);
        assertTrue(c.ok(), c.error());
        assertEquals(countContentChunks(stream), c.contentChunks());
        assertEquals(usage(stream, "completion_tokens"), c.completionTokens());
        assertEquals(20.0, c.ttftMs(), 1e-9);
        assertEquals(23.282816822978806, c.serverDecodeTps(), 1e-9);
    }

    @Test
    void decodeRateLeavesTheFirstTokenOut() {
        Completion c = new Completion(true, 200, 1000, 100, 500, 11, 30, 11, true, "", Double.NaN);
        assertEquals(20.0, c.decodeTps(), 1e-9); // 10 tokens after the first in 0.5 s
        assertEquals(11.0, c.completionTps(), 1e-9);
    }

    @Test
    void withoutUsageTheChunksAreCounted() {
        String s = "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"
                + "data: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\ndata: [DONE]\n\n";
        Completion c = replay(s, 200);
        assertTrue(c.ok());
        assertFalse(c.usageReported());
        assertEquals(2, c.completionTokens());
    }

    @Test
    void failures() {
        assertEquals(
                "stream ended without [DONE]",
                replay("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n", 200)
                        .error());
        Completion err =
                replay("data: {\"error\":{\"message\":\"context full\",\"code\":500}}\n\ndata: [DONE]\n\n", 200);
        assertFalse(err.ok());
        assertEquals("context full", err.error());
        assertEquals("HTTP 503", replay("data: [DONE]\n\n", 503).error());
        assertEquals("no tokens generated", replay("data: [DONE]\n\n", 200).error());
        assertFalse(replay("data: {not json\n\ndata: [DONE]\n\n", 200).ok());
    }

    @Test
    void nonStreamedBodies() {
        Completion ok = ChatStream.fromBody(200, 250, """
                {"choices":[{"index":0,"message":{"role":"assistant","content":"x"},"finish_reason":"length"}],
                 "usage":{"completion_tokens":32,"prompt_tokens":30,"total_tokens":62}}""");
        assertTrue(ok.ok());
        assertEquals(32, ok.completionTokens());
        assertEquals(128.0, ok.completionTps(), 1e-9);
        assertTrue(Double.isNaN(ok.serverDecodeTps()), "no timings, no server speed");
        assertEquals(55.5, ChatStream.fromBody(200, 250, """
                {"choices":[{"message":{"content":"x"}}],"usage":{"completion_tokens":32,"prompt_tokens":30},
                 "timings":{"predicted_n":32,"predicted_per_second":55.5}}""").serverDecodeTps(), 1e-9);
        Completion bad = ChatStream.fromBody(404, 3, "{\"error\":{\"message\":\"model not found\",\"type\":\"x\"}}");
        assertFalse(bad.ok());
        assertEquals("model not found", bad.error());
        assertFalse(ChatStream.fromBody(200, 3, "<html>").ok());
    }

    private static int countContentChunks(String stream) {
        int n = 0;
        for (String e : SseParserTest.events(stream)) {
            if (e.matches(".*\"content\":\"[^\"]+.*")) {
                n++;
            }
        }
        return n;
    }

    private static int usage(String stream, String field) {
        var m = java.util.regex.Pattern.compile("\"" + field + "\":(\\d+)").matcher(stream);
        int v = -1;
        while (m.find()) {
            v = Integer.parseInt(m.group(1));
        }
        return v;
    }
}
