package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import forge.api.template.ToolDefinition;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;

/**
 * A chat completions body as arbitrary bytes, through everything that reads it before a model is
 * involved: {@link Json#parse}, {@link ChatRequest#parse}, and on their own (since
 * {@code ChatRequest} stops at the first refusal) {@link GenerationParams#parse} and
 * {@link StructuredOutput#parse}. Each either accepts the body or refuses it with an
 * {@link ApiError} of status 400 whose message names no Java type; any other exception, or an
 * input that takes seconds, is a bug.
 *
 * <p>In the normal build this runs the committed corpus ({@code ChatRequestFuzzTestInputs/parse/}:
 * the bodies of the end-to-end tests, valid and refused, and the schema corpus inside them); under
 * {@code bench/fuzz.sh} Jazzer fuzzes it.
 */
class ChatRequestFuzzTest {

    /**
     * What a message must not show a client: a qualified Java name ({@code java.lang.String},
     * {@code com.fasterxml.jackson...}), a throwable's simple name, a member of a type
     * ({@code StreamReadConstraints.getMaxNestingDepth}, {@code JsonReadFeature.ALLOW_...}), Jackson's
     * backquotes around such code, a stack frame, an inner class.
     */
    private static final Pattern JAVA_NAMES =
            Pattern.compile("\\b(?:java|javax|jdk|sun|com|org|forge)\\.[a-z]\\w*\\.[\\w.$]+"
                    + "|\\b[A-Z]\\w*(?:Exception|Error)\\b"
                    + "|\\b[A-Z][a-z]+[A-Z]\\w*\\.\\w+"
                    + "|`"
                    + "|\\tat \\S+\\("
                    + "|\\b[A-Z]\\w*\\$[A-Z]\\w*");

    /** The names a body speaks in, so that mutations reach past "unknown parameter" into what each one means. */
    @DictionaryEntries({
        "\"model\"",
        "\"messages\"",
        "\"role\"",
        "\"content\"",
        "\"system\"",
        "\"user\"",
        "\"assistant\"",
        "\"tool\"",
        "\"name\"",
        "\"tool_calls\"",
        "\"tool_call_id\"",
        "\"reasoning_content\"",
        "\"function\"",
        "\"arguments\"",
        "\"tools\"",
        "\"parameters\"",
        "\"description\"",
        "\"strict\"",
        "\"tool_choice\"",
        "\"none\"",
        "\"auto\"",
        "\"required\"",
        "\"parallel_tool_calls\"",
        "\"type\"",
        "\"text\"",
        "\"response_format\"",
        "\"json_object\"",
        "\"json_schema\"",
        "\"schema\"",
        "\"grammar\"",
        "\"stream\"",
        "\"stream_options\"",
        "\"include_usage\"",
        "\"max_tokens\"",
        "\"max_completion_tokens\"",
        "\"temperature\"",
        "\"top_p\"",
        "\"top_k\"",
        "\"min_p\"",
        "\"seed\"",
        "\"stop\"",
        "\"presence_penalty\"",
        "\"frequency_penalty\"",
        "\"repeat_penalty\"",
        "\"repeat_last_n\"",
        "\"ignore_eos\"",
        "\"n\"",
        "\"logit_bias\"",
        "\"logprobs\"",
        "\"top_logprobs\"",
        "\"chat_template_kwargs\"",
        "\"properties\"",
        "\"items\"",
        "\"$ref\"",
        "\"$defs\"",
        "\"#/$defs/\"",
        "\"anyOf\"",
        "\"oneOf\"",
        "\"allOf\"",
        "\"enum\"",
        "\"const\"",
        "\"minItems\"",
        "\"maxItems\"",
        "\"minLength\"",
        "\"maxLength\"",
        "\"pattern\"",
        "\"format\"",
        "\"minimum\"",
        "\"maximum\"",
        "\"exclusiveMinimum\"",
        "\"additionalProperties\"",
        "\"object\"",
        "\"array\"",
        "\"string\"",
        "\"integer\"",
        "\"number\"",
        "\"boolean\"",
        "\"null\"",
        "::=",
        "root",
        "\\u",
        "\\ud800",
        "1e400",
        "18446744073709551616"
    })
    @FuzzTest(maxDuration = "30s")
    @Timeout(10)
    void parse(byte[] body) {
        String text = new String(body, StandardCharsets.UTF_8);
        JsonNode node;
        try {
            node = Json.parse(body);
        } catch (ApiError refused) {
            check(refused, text);
            return;
        }
        List<ToolDefinition> tools = List.of();
        try {
            tools = ChatRequest.parse(Fields.of(node)).prompt().tools();
        } catch (ApiError refused) {
            check(refused, text);
        }
        try {
            GenerationParams.parse(Fields.of(node), -1);
        } catch (ApiError refused) {
            check(refused, text);
        }
        try {
            StructuredOutput.parse(node, tools);
        } catch (ApiError refused) {
            check(refused, text);
        }
    }

    /** A refusal is a 400 that shows no Java names but those the body itself holds. */
    private static void check(ApiError refused, String body) {
        assertEquals(400, refused.status(), refused.getMessage());
        Matcher m = JAVA_NAMES.matcher(refused.getMessage());
        while (m.find()) {
            if (!body.contains(m.group())) {
                fail("the message names '" + m.group() + "': " + refused.getMessage());
            }
        }
    }
}
