package forge.lib.grammar;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Timeout;

/**
 * The Lark translation on arbitrary text, as a client's custom tool may send it: a grammar becomes
 * GBNF that llama.cpp's rules accept, as text and as a JSON string's content, or is refused with a
 * {@link LarkGrammarException}; nothing else is thrown, and no text takes seconds.
 *
 * <p>In the normal build this runs the committed corpus ({@code LarkGrammarFuzzTestInputs/convert/}:
 * Codex's apply_patch grammar, a calculator, refusals); under {@code bench/fuzz.sh lark} Jazzer
 * fuzzes it.
 */
class LarkGrammarFuzzTest {

    // Entries without quotes, backslashes or newlines, which libFuzzer's dictionary format would need escaped.
    @DictionaryEntries({
        "start",
        ":",
        " | ",
        "(",
        ")",
        "[",
        "]",
        "/",
        "*",
        "+",
        "?",
        "~ 2..3",
        "->",
        "%import common.",
        "%ignore",
        "WS",
        "NUMBER",
        "LF",
        "//",
        "..",
        "?rule",
        ".2",
        "{",
        "(?",
        "%declare",
        "[^a-z]",
        "{1,3}"
    })
    @FuzzTest(maxDuration = "30s")
    @Timeout(10)
    void convert(byte[] data) {
        String definition = new String(data, StandardCharsets.UTF_8);
        try {
            GbnfGrammar.check(LarkGrammar.toGbnf(definition));
            GbnfGrammar.check("root ::= \"\\\"\" t \"\\\"\"\n"
                    + LarkGrammar.rules(definition, "t", LarkGrammar.Encoding.JSON_STRING));
        } catch (LarkGrammarException refused) {
            // the one way to say no
        }
    }
}
