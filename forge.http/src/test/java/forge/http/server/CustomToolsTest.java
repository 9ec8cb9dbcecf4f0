package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.lib.grammar.GbnfGrammar;
import forge.lib.grammar.JsonSchemaGrammar;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CustomToolsTest {

    @Test
    void theInputStreamsAsItDecodesOutOfTheArgumentsWrittenSoFar() {
        String args = CustomTools.arguments("*** Begin Patch\n+say \"hi\" \\ \u00e9\ud83d\ude00\n");
        assertEquals("{\"input\":\"*** Begin Patch\\n+say \\\"hi\\\" \\\\ \u00e9\ud83d\ude00\\n\"}", args);
        StringBuilder streamed = new StringBuilder();
        for (int i = 0; i <= args.length(); i++) {
            String partial = CustomTools.partialInput(args.substring(0, i));
            assertTrue(partial.startsWith(streamed.toString()), "never takes back what it gave: " + partial);
            streamed.setLength(0);
            streamed.append(partial);
        }
        assertEquals(CustomTools.input(args), streamed.toString());
        // The model's own spacing, and \\u escapes cut anywhere.
        assertEquals("a\n", CustomTools.partialInput("{ \"input\" : \"a\\n"));
        assertEquals("a", CustomTools.partialInput("{\"input\": \"a\\u00"));
        assertEquals("a\u00e9", CustomTools.partialInput("{\"input\": \"a\\u00e9"));
        assertEquals("", CustomTools.partialInput("{\"other\": \"a"));
    }

    @Test
    void theInputOfArgumentsWrittenOtherwise() {
        assertEquals("x", CustomTools.input("{\"input\": \"x\"}"));
        assertEquals("y", CustomTools.input("{\"patch\": \"y\"}"), "one value, whatever its key");
        assertEquals("[1]", CustomTools.input("{\"input\": [1]}"));
        assertEquals("{\"a\":1,\"b\":2}", CustomTools.input("{\"a\":1,\"b\":2}"));
        assertEquals("not json", CustomTools.input("not json"));
        assertEquals("ab\n", CustomTools.input("{\"input\": \"ab\\n"), "cut short: what it holds");
    }

    @Test
    void aGrammarIsTheArgumentRuleOfItsToolAndTemplatesMustUseIt() {
        Map<String, CustomTools.Format> formats = new LinkedHashMap<>();
        var fn = CustomTools.function(Json.parse("""
                {"type": "custom", "name": "calc", "format": {"type": "grammar", "syntax": "regex", "definition": "[0-9]+"}}""".getBytes()), "tools[0]", 3, formats);
        assertEquals(
                "{\"type\":\"object\",\"properties\":{\"input\":{\"type\":\"string\",\"description\":\"Text in this regex grammar:\\n[0-9]+\"}},"
                        + "\"required\":[\"input\"],\"additionalProperties\":false}",
                Json.string(fn.get("parameters")));
        CustomTools.Format f = formats.get("calc");
        assertEquals("custom3-args", f.argumentRule());
        JsonSchemaGrammar builder = JsonSchemaGrammar.builder();
        assertEquals("custom3-args", CustomTools.addRules(builder, f));
        String calls = "root ::= \"<tool_call>\" custom3-args \"</tool_call>\"\n";
        GbnfGrammar.check(builder.build() + calls);
        assertTrue(CustomTools.enforced(calls, f));
        assertFalse(CustomTools.enforced("root ::= custom3-args-x\n", f));
        assertTrue(
                builder.build().contains("custom3-args ::= \"{\\\"input\\\": \\\"\" custom3-input \"\\\"}\""),
                builder.build());
    }
}
