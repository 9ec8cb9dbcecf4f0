package forge.runtime.grammar;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class GbnfGrammarTest {

    private static GbnfGrammar.InvalidGrammarException invalid(String g) {
        return assertThrows(GbnfGrammar.InvalidGrammarException.class, () -> GbnfGrammar.check(g));
    }

    @Test
    void acceptsWhatLlamaCppAccepts() {
        assertDoesNotThrow(() -> GbnfGrammar.check("""
                # a comment
                root ::= ("yes" | "no") ws item{2,3} [^"\\\\\\x00-\\x1F]* "\\u00e9" .? <[12]>
                ws ::= [ \\t\\n]*
                item ::= [a-z-] item?
                """));
    }

    @Test
    void reportsLineAndColumn() {
        var e = invalid("root ::= a\na ::= \"x\" (\"y\"\n");
        assertEquals(3, e.line(), e.getMessage());
        assertTrue(invalid("root ::= [a-").getMessage().contains("character class"));
        assertTrue(invalid("root ::= \"\\q\"").getMessage().contains("unknown escape"));
        assertTrue(invalid("root := \"a\"").getMessage().contains("::="));
    }

    @Test
    void undefinedRulesMissingRootAndLeftRecursion() {
        assertTrue(invalid("root ::= other").getMessage().contains("undefined rule 'other'"));
        assertTrue(invalid("start ::= \"a\"").getMessage().contains("no 'root'"));
        assertTrue(invalid("root ::= x\nx ::= \"a\"? root \"b\"").getMessage().contains("left recursive"));
        assertDoesNotThrow(() -> GbnfGrammar.check("root ::= \"a\" root | \"b\""));
    }
}
