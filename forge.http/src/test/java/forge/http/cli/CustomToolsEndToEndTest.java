package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.assertParam;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.lib.gguf.synth.SynthSpec;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Freeform {@code custom} tools on {@code /v1/responses} against the real server, as Codex CLI
 * sends them: its own {@code apply_patch} Lark grammar forced on the random model gives a valid
 * patch (read by {@link PatchFormat}, apart from the translation), whole and streamed with the
 * custom-tool-input events; a calculator grammar likewise; a call and its output rendered as the
 * template renders chat's tool turns; hosted tools dropped and named.
 */
class CustomToolsEndToEndTest {

    @AutoClose
    static TestServer server;

    static Http http;
    static String applyPatch;

    @BeforeAll
    static void start() throws Exception {
        // Codex's request, its grammar in the tool's description, is over a thousand tokens of this byte-level
        // vocabulary.
        // A second model whose template (Qwen 3.5's) writes each argument as <parameter=...> text, not one JSON object.
        server = TestServer.serve(
                TestServer.model("tiny-qwen-8k", SynthSpec.tiny("qwen").withContextLength(8192)),
                "--alias demo --template tiny-qwen-xml=qwen3.5 -c 8192 -np 2 -t 2",
                "-m",
                TestServer.model("tiny-qwen-xml", SynthSpec.tiny("qwen").withContextLength(8192))
                        .toString());
        http = server.http();
        // Codex's grammar, kept once in the grammar module's test resources; its source comment dropped.
        applyPatch = Files.readString(
                        Path.of("../forge.runtime/grammar/src/test/resources/forge/lib/grammar/apply_patch.lark"))
                .lines()
                .filter(l -> !l.startsWith("//"))
                .collect(Collectors.joining("\n", "", "\n"));
    }

    /** A request shaped as Codex CLI sends it: instructions, a message item, its tools, reasoning, include, a cache key. */
    static ObjectNode codexRequest(boolean stream) throws Exception {
        ObjectNode body = JSON.createObjectNode().put("model", "demo").put("instructions", "You are a coding agent.");
        body.putArray("input")
                .addObject()
                .put("type", "message")
                .put("role", "user")
                .putArray("content")
                .addObject()
                .put("type", "input_text")
                .put("text", "Add a file hello.txt that says hello.");
        var tools = body.putArray("tools");
        ObjectNode shell = tools.addObject()
                .put("type", "function")
                .put("name", "shell")
                .put("description", "Runs a shell command")
                .put("strict", false);
        ObjectNode params = shell.putObject("parameters").put("type", "object");
        params.putObject("properties")
                .putObject("command")
                .put("type", "array")
                .putObject("items")
                .put("type", "string");
        params.putArray("required").add("command");
        params.put("additionalProperties", false);
        tools.addObject()
                .put("type", "custom")
                .put("name", "apply_patch")
                .put(
                        "description",
                        "Use the `apply_patch` tool to edit files. This is a FREEFORM tool, so do not wrap the patch in JSON.")
                .putObject("format")
                .put("type", "grammar")
                .put("syntax", "lark")
                .put("definition", applyPatch);
        tools.addObject().put("type", "web_search");
        body.putObject("tool_choice").put("type", "custom").put("name", "apply_patch");
        body.put("parallel_tool_calls", false);
        body.putNull("reasoning");
        body.put("store", true).put("stream", stream);
        body.putArray("include");
        body.put("prompt_cache_key", "0f8e2d3c");
        return steered(body);
    }

    /**
     * The random model steered to end a patch, as no trained model needs: under the grammar it
     * would write a file name without end. Biased up, {@code \} then {@code n} (a newline, as the
     * JSON string holds it) ends a line, {@code *} opens the next file, {@code D}/{@code E} choose
     * Delete and End; sampled with a seed, the answer is the same each run.
     */
    static ObjectNode steered(ObjectNode body) throws Exception {
        ObjectNode bias = body.putObject("logit_bias");
        for (String piece : List.of("\\", "n", "*", "D", "E")) {
            JsonNode ids = ok(http.post(
                            "/tokenize",
                            JSON.createObjectNode()
                                    .put("model", "demo")
                                    .put("content", piece)
                                    .put("parse_special", false)
                                    .toString()))
                    .get("tokens");
            assertEquals(1, ids.size(), piece);
            bias.put(ids.get(0).asText(), 5);
        }
        return body.put("temperature", 1).put("seed", 7).put("max_output_tokens", 600);
    }

    @Test
    void codexsApplyPatchForcedIsAValidPatch() throws Exception {
        HttpResponse<String> r = http.post("/v1/responses", codexRequest(false).toString());
        JsonNode resp = ok(r);
        assertEquals("completed", resp.get("status").asText(), r.body());
        List<JsonNode> calls = items(resp, "custom_tool_call");
        assertEquals(1, calls.size(), r.body());
        JsonNode call = calls.getFirst();
        assertEquals("apply_patch", call.get("name").asText());
        assertTrue(call.get("call_id").asText().startsWith("call_"), call.toString());
        assertTrue(call.get("id").asText().startsWith("ctc_"), call.toString());
        String patch = call.get("input").asText();
        assertTrue(PatchFormat.valid(patch), patch);
        // The hosted tool was not offered: said in the header and in the response.
        assertTrue(
                r.headers().firstValue("X-Forge-Ignored-Params").orElse("").contains("tools[2] (web_search)"),
                r.headers().toString());
        assertEquals(
                "tools[2] (web_search)",
                resp.get("metadata").get("forge_dropped_tools").asText());

        // The next turn: the call's output, after the stored response.
        ObjectNode next = JSON.createObjectNode()
                .put("model", "demo")
                .put("previous_response_id", resp.get("id").asText())
                .put("max_output_tokens", 4)
                .put("temperature", 0);
        next.putArray("input")
                .addObject()
                .put("type", "custom_tool_call_output")
                .put("call_id", call.get("call_id").asText())
                .put("output", "Success. Updated the following files:\nA hello.txt\n");
        JsonNode after = ok(http.post("/v1/responses", next.toString()));
        // The stored call renders as the same call sent back as an input item, as Codex does without a store.
        ObjectNode explicit = next.deepCopy();
        explicit.remove("previous_response_id");
        var items = explicit.putArray("input");
        items.add(codexRequest(false).get("input").get(0));
        items.add(call);
        items.add(next.get("input").get(0));
        assertEquals(
                after.get("usage").get("input_tokens").asInt(),
                ok(http.post("/v1/responses", explicit.toString()))
                        .get("usage")
                        .get("input_tokens")
                        .asInt());
    }

    @Test
    void streamedTheInputDeltasMakeTheSamePatch() throws Exception {
        HttpResponse<String> r = http.post("/v1/responses", codexRequest(true).toString());
        List<Http.Event> events = Http.namedEvents(r);
        StringBuilder deltas = new StringBuilder();
        String done = null;
        String itemId = null;
        for (int i = 0; i < events.size(); i++) {
            Http.Event e = events.get(i);
            assertEquals(i, e.data().get("sequence_number").asInt());
            switch (e.name()) {
                case "response.output_item.added" -> {
                    if (e.data().get("item").get("type").asText().equals("custom_tool_call")) {
                        itemId = e.data().get("item").get("id").asText();
                        assertEquals("", e.data().get("item").get("input").asText());
                    }
                }
                case "response.custom_tool_call_input.delta" -> {
                    assertEquals(itemId, e.data().get("item_id").asText());
                    deltas.append(e.data().get("delta").asText());
                }
                case "response.custom_tool_call_input.done" ->
                    done = e.data().get("input").asText();
                case "response.function_call_arguments.delta" ->
                    throw new AssertionError("a custom tool's call is not a function call");
                default -> {}
            }
        }
        assertTrue(
                deltas.length() > 0
                        && events.stream()
                                        .filter(e -> e.name().endsWith("input.delta"))
                                        .count()
                                > 1,
                "the input streams in pieces");
        assertEquals(done, deltas.toString());
        assertTrue(PatchFormat.valid(done), done);
        JsonNode last = events.getLast().data().get("response");
        assertEquals("response.completed", events.getLast().name());
        assertEquals(
                done, items(last, "custom_tool_call").getFirst().get("input").asText());
    }

    static final String CALCULATOR = """
            ?start: sum
            ?sum: product
                | sum "+" product   -> add
                | sum "-" product   -> sub
            ?product: atom
                | product "*" atom  -> mul
                | product "/" atom  -> div
            ?atom: NUMBER           -> number
                 | "-" atom         -> neg
                 | NAME             -> var
                 | "(" sum ")"
            NAME: /[a-z_][a-z_0-9]*/
            %import common.NUMBER
            %import common.WS_INLINE
            %ignore WS_INLINE
            """;

    @Test
    void aCalculatorGrammarForcedIsAnExpression() throws Exception {
        ObjectNode body = JSON.createObjectNode()
                .put("model", "demo")
                .put("input", "What is two plus two?")
                .put("max_output_tokens", 600)
                .put("temperature", 0);
        body.putArray("tools")
                .addObject()
                .put("type", "custom")
                .put("name", "calc")
                .put("description", "Evaluates arithmetic")
                .putObject("format")
                .put("type", "grammar")
                .put("syntax", "lark")
                .put("definition", CALCULATOR);
        body.put("tool_choice", "required");
        HttpResponse<String> r = http.post("/v1/responses", body.toString());
        JsonNode call = items(ok(r), "custom_tool_call").getFirst();
        assertEquals("calc", call.get("name").asText());
        String expression = call.get("input").asText();
        assertTrue(new Calculator(expression).valid(), expression);
    }

    @Test
    void aCallAndItsOutputRenderAsChatsToolTurns() throws Exception {
        String patch = "*** Begin Patch\n*** Add File: hello.txt\n+hello \"world\"\n*** End Patch\n";
        ObjectNode responses = JSON.createObjectNode().put("model", "demo").put("max_output_tokens", 1);
        var input = responses.putArray("input");
        input.addObject().put("role", "user").put("content", "Add hello.txt");
        input.addObject()
                .put("type", "custom_tool_call")
                .put("call_id", "call_7")
                .put("name", "apply_patch")
                .put("input", patch);
        input.addObject()
                .put("type", "custom_tool_call_output")
                .put("call_id", "call_7")
                .put("output", "Done!");
        ObjectNode chat = JSON.createObjectNode().put("model", "demo").put("max_tokens", 1);
        var messages = chat.putArray("messages");
        messages.addObject().put("role", "user").put("content", "Add hello.txt");
        ObjectNode assistant = messages.addObject().put("role", "assistant");
        assistant.putNull("content");
        assistant
                .putArray("tool_calls")
                .addObject()
                .put("id", "call_7")
                .put("type", "function")
                .putObject("function")
                .put("name", "apply_patch")
                .put("arguments", JSON.writeValueAsString(java.util.Map.of("input", patch)));
        messages.addObject().put("role", "tool").put("tool_call_id", "call_7").put("content", "Done!");
        // The template's own rendering of that chat: the call with the patch as its one string argument, then the
        // output.
        String prompt =
                ok(http.post("/apply-template", chat.toString())).get("prompt").asText();
        assertTrue(
                prompt.contains("<tool_call>\n{\"name\": \"apply_patch\", \"arguments\": {\"input\": "
                        + JSON.writeValueAsString(patch) + "}}\n</tool_call>"),
                prompt);
        assertTrue(prompt.contains("<tool_response>\nDone!\n</tool_response>"), prompt);
        // The Responses items render to the same prompt: as many tokens.
        assertEquals(
                ok(http.post("/v1/chat/completions", chat.toString()))
                        .get("usage")
                        .get("prompt_tokens")
                        .asInt(),
                ok(http.post("/v1/responses", responses.toString()))
                        .get("usage")
                        .get("input_tokens")
                        .asInt());
    }

    @Test
    void aTemplateWritingArgumentsAsTextCannotEnforceTheGrammarSaysSoAndRefusesToForceIt() throws Exception {
        ObjectNode offered = codexRequest(false)
                .put("model", "tiny-qwen-xml")
                .put("tool_choice", "auto")
                .put("max_output_tokens", 4);
        HttpResponse<String> r = http.post("/v1/responses", offered.toString());
        ok(r);
        assertTrue(
                r.headers()
                        .firstValue("X-Forge-Ignored-Params")
                        .orElse("")
                        .contains("tools[apply_patch].format (not enforced by the chat template 'qwen3.5')"),
                r.headers().toString());
        HttpResponse<String> forced = http.post(
                "/v1/responses",
                codexRequest(false).put("model", "tiny-qwen-xml").toString());
        assertParam(forced, "tools");
        assertTrue(forced.body().contains("writes tool arguments in its own notation"), forced.body());
    }

    static List<JsonNode> items(JsonNode response, String type) {
        List<JsonNode> out = new java.util.ArrayList<>();
        response.get("output").forEach(i -> {
            if (i.get("type").asText().equals(type)) {
                out.add(i);
            }
        });
        return out;
    }

    /** The calculator language read by recursive descent, blanks (spaces, tabs) allowed between tokens. */
    static final class Calculator {
        private static final Pattern NUMBER = Pattern.compile("(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?");
        private static final Pattern NAME = Pattern.compile("[a-z_][a-z_0-9]*");
        private final String s;
        private int pos;

        Calculator(String s) {
            this.s = s;
        }

        boolean valid() {
            blanks();
            if (!sum()) {
                return false;
            }
            blanks();
            return pos == s.length();
        }

        private void blanks() {
            while (pos < s.length() && (s.charAt(pos) == ' ' || s.charAt(pos) == '\t')) {
                pos++;
            }
        }

        private boolean operator(String ops) {
            blanks();
            if (pos < s.length() && ops.indexOf(s.charAt(pos)) >= 0) {
                pos++;
                blanks();
                return true;
            }
            return false;
        }

        private boolean sum() {
            return chain("+-", this::product);
        }

        private boolean product() {
            return chain("*/", this::atom);
        }

        /** An {@code operand}, then any number of {@code operators} each followed by one: a level of the grammar. */
        private boolean chain(String operators, BooleanSupplier operand) {
            if (!operand.getAsBoolean()) {
                return false;
            }
            while (true) {
                int save = pos;
                if (!operator(operators)) {
                    pos = save;
                    return true;
                }
                if (!operand.getAsBoolean()) {
                    return false;
                }
            }
        }

        private boolean atom() {
            if (pos >= s.length()) {
                return false;
            }
            char c = s.charAt(pos);
            if (c == '-') {
                pos++;
                blanks();
                return atom();
            }
            if (c == '(') {
                pos++;
                blanks();
                if (!sum()) {
                    return false;
                }
                blanks();
                if (pos < s.length() && s.charAt(pos) == ')') {
                    pos++;
                    return true;
                }
                return false;
            }
            for (Pattern p : List.of(NUMBER, NAME)) {
                Matcher m = p.matcher(s).region(pos, s.length());
                if (m.lookingAt()) {
                    pos = m.end();
                    return true;
                }
            }
            return false;
        }
    }
}
