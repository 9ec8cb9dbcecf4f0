package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FieldsTest {

    private static Fields fields(String json) {
        return Fields.of(Json.parse(json.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void whatIsReadIsHandledAndWhatIsNeverReadIsIgnored() {
        Fields f = fields("{\"a\": 1, \"b\": null, \"c\": 3, \"d\": {\"x\": 1}, \"cache_prompt\": true}");
        assertEquals(Set.of("a", "b", "c", "d"), f.ignored());
        Params.integer(f, "a", 0, 0, 9);
        f.hasNonNull("b");
        f.path("d");
        assertEquals(Set.of("c"), f.ignored(), "a read of any kind handles the field, an explicit null too");
        assertEquals(
                List.of("cache_prompt"),
                List.copyOf(fields("{\"cache_prompt\": false}").ignored()),
                "a neutral field is ignored only when it holds another value");
    }

    @Test
    void aNestedObjectsUnreadFieldsAreNamedByTheirPath() {
        Fields f = fields("{\"reasoning\": {\"effort\": \"low\", \"summary\": \"auto\"}, \"text\": \"no object\"}");
        Fields reasoning = f.nested("reasoning");
        Params.string(reasoning, "effort", "reasoning", 16);
        assertEquals(Set.of("reasoning.summary", "text"), f.ignored());
        assertNull(f.nested("absent"));
        assertEquals(
                "text", assertThrows(ApiError.class, () -> f.nested("text")).param());
    }

    @Test
    void aReadWithoutEffectIsNamedAndAnUnrecordedCheckReadsNothing() {
        Fields f = fields("{\"best_of\": 3, \"user\": \"u\"}");
        Params.integer(f, "best_of", 1, 1, 16);
        f.unused("best_of");
        assertEquals(3, Params.integer(Fields.unrecorded(f), "best_of", 1, 1, 16));
        assertEquals("u", Params.string(Fields.unrecorded(f), "user", "", 10));
        assertEquals(Set.of("best_of", "user"), f.ignored());
    }

    /** Every door: a field its parser reads is never ignored, one it never reads is. */
    @Test
    void eachDoorNamesExactlyTheFieldsItsParserNeverRead() {
        String chat = """
                {"model": "m", "messages": [{"role": "user", "content": "x"}], "top_logprobs": null, "logprobs": false,
                 "stream_options": null, "min_p": 0.1, "user": "u", "store": true, "metadata": {}}""";
        assertEquals(
                Set.of("metadata", "store", "user"),
                ChatRequest.parse(fields(chat)).ignored());
        String messages = """
                {"model": "m", "max_tokens": 4, "messages": [{"role": "user", "content": "x"}], "metadata": {}, "top_k": 4,
                 "user": "u", "min_p": 0.1, "output_config": {"effort": "low"}}""";
        assertEquals(
                Set.of("min_p", "output_config.effort", "user"),
                MessagesRequest.parse(fields(messages)).ignored());
        String responses = """
                {"model": "m", "input": "x", "user": "u", "metadata": {}, "min_p": 0.1, "store": false,
                 "tools": [{"type": "web_search"}], "text": {"verbosity": "low"}}""";
        assertEquals(
                Set.of("min_p", "text.verbosity", "tools[0] (web_search)"),
                ResponsesRequest.parse(fields(responses), new ResponseStore())
                        .chat()
                        .ignored());
    }
}
