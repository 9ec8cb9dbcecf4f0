package forge.lib.grammar;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RegexToGbnfTest {

    @Test
    void aQuantifierAfterAnEscapedCharacterRepeatsThatCharacterAlone() {
        // As a schema pattern (a JSON string) and as a Lark terminal (plain text): "a\.*" is "a" then dots.
        String json = JsonSchemaGrammar.convert(Map.of("type", "string", "pattern", "^a\\.*$"));
        String text = LarkGrammar.toGbnf("start: /a\\.*/\n");
        for (String ok : new String[] {"a", "a.", "a..."}) {
            assertTrue(GbnfMatcher.matches(json, "\"" + ok + "\""), ok + "\n" + json);
            assertTrue(GbnfMatcher.matches(text, ok), ok + "\n" + text);
        }
        assertFalse(GbnfMatcher.matches(json, "\"a.a.\""));
        assertFalse(GbnfMatcher.matches(text, "a.a."));
    }

    @Test
    void plainTextAdmitsWhatAJsonStringMayNotHoldRaw() {
        String text = LarkGrammar.toGbnf("start: /[^a]\"\\\\./\n");
        assertTrue(GbnfMatcher.matches(text, "\n\"\\\t"), text);
        assertFalse(GbnfMatcher.matches(text, "x\"\\\n"), "'.' is not a newline");
        String json = JsonSchemaGrammar.convert(Map.of("type", "string", "pattern", "^[^a]$"));
        assertFalse(GbnfMatcher.matches(json, "\"\"\""), "a schema's negated class keeps JSON's exclusions");
    }
}
