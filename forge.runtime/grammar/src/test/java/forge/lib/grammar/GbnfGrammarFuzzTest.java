package forge.lib.grammar;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Timeout;

/**
 * The GBNF checker on arbitrary text: a grammar passes or is refused with an
 * {@link GbnfGrammar.InvalidGrammarException}; nothing else is thrown, a {@link StackOverflowError}
 * least of all (the checker bounds nesting, reference chains and its left-recursion walk, see
 * {@link GbnfGrammar}'s limits), and no text takes seconds.
 *
 * <p>In the normal build this runs the committed corpus ({@code GbnfGrammarFuzzTestInputs/check/}:
 * the grammars of {@link GbnfGrammarTest} and the grammars of the schema corpus); under
 * {@code bench/fuzz.sh} Jazzer fuzzes it.
 */
class GbnfGrammarFuzzTest {

    @DictionaryEntries({
        "::=",
        "root",
        " | ",
        "(",
        ")",
        "[^",
        "]",
        "\"",
        "*",
        "+",
        "?",
        "{0,",
        "{2000}",
        "\\x00",
        "\\u00e9",
        "\\U0001F600",
        "\\\\",
        "<|im_end|>",
        "<[",
        "!",
        ".",
        "# ",
        "\n",
        "a-z"
    })
    @FuzzTest(maxDuration = "30s")
    @Timeout(10)
    void check(byte[] data) {
        try {
            GbnfGrammar.check(new String(data, StandardCharsets.UTF_8));
        } catch (GbnfGrammar.InvalidGrammarException refused) {
            // the one way to say no
        }
    }
}
