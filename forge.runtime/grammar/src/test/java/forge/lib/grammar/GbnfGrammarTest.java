package forge.lib.grammar;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.lib.text.Gbnf;
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

    /** The one literal escaper's output, tabs, CR and LF included, is a literal llama.cpp reads. */
    @Test
    void acceptsEveryLiteralTheToolkitWrites() {
        assertDoesNotThrow(
                () -> GbnfGrammar.check("root ::= " + Gbnf.literal("tab\there \"q\" \\ \r\n <|\"|> [x] -") + "\n"));
        assertDoesNotThrow(
                () -> GbnfGrammar.check("root ::= \"raw\ttab\"\n"), "llama.cpp reads a raw tab inside quotes too");
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

    @Test
    void groupsNestAtMostTheLimitDeep() {
        int n = GbnfGrammar.MAX_NESTING;
        assertDoesNotThrow(() -> GbnfGrammar.check("root ::= " + "(".repeat(n) + "\"a\"" + ")".repeat(n)));
        // A few thousand levels overflow llama.cpp's recursive parser on the engine thread's stack.
        var e = invalid("root ::= " + "(".repeat(5000) + "\"a\"" + ")".repeat(5000));
        assertTrue(e.getMessage().contains("nest more than " + n + " deep"), e.getMessage());
    }

    @Test
    void repetitionsStayWithinLlamaCppsLimit() {
        assertDoesNotThrow(() -> GbnfGrammar.check("root ::= \"a\"{2000} [0-9]{0,2000}"));
        assertTrue(invalid("root ::= \"a\"{1000000}").getMessage().contains("over the limit of 2000"));
        assertTrue(invalid("root ::= \"a\"{3,1000000}").getMessage().contains("over the limit of 2000"));
        assertTrue(invalid("root ::= \"a\"{99999999999999999999}").getMessage().contains("over the limit of 2000"));
        // llama.cpp multiplies: the 101 rules of the group times 30.
        assertTrue(invalid("root ::= (\"a\"{0,100}){30}").getMessage().contains("101 rules 30 times"));
        assertTrue(invalid("root ::= \"a\"{10}{300}").getMessage().contains("over the limit"));
        // max below min makes llama.cpp count down from 2^64 rules.
        assertTrue(invalid("root ::= \"a\"{5,3}").getMessage().contains("less than its minimum"));
    }

    @Test
    void theExpandedGrammarIsBounded() {
        String literal = "\"" + "x".repeat(1000) + "\"";
        assertDoesNotThrow(() -> GbnfGrammar.check("root ::= " + literal + "{500}"));
        assertTrue(invalid("root ::= " + literal + "{2000}").getMessage().contains("more than 1000000 elements"));
    }

    @Test
    void leftmostReferencesChainAtMostTheLimitDeep() {
        StringBuilder g = new StringBuilder("root ::= r0\n");
        for (int i = 0; i < 5000; i++) {
            g.append('r').append(i).append(" ::= r").append(i + 1).append(" \"x\"\n");
        }
        g.append("r5000 ::= \"a\"\n");
        assertTrue(invalid(g.toString()).getMessage().contains("chain more than 1000 rules deep"));
        // Not leftmost: llama.cpp does not walk these, so any length is fine.
        StringBuilder flat = new StringBuilder("root ::= r0\n");
        for (int i = 0; i < 5000; i++) {
            flat.append('r').append(i).append(" ::= \"x\" r").append(i + 1).append('\n');
        }
        flat.append("r5000 ::= \"a\"\n");
        assertDoesNotThrow(() -> GbnfGrammar.check(flat.toString()));
    }

    @Test
    void rulesThatBranchIntoTheSameRulesAgainAreRefused() {
        // llama.cpp walks every path of leftmost references anew: 2^40 here, hours on the engine thread.
        assertTrue(invalid(branchingChain(40)).getMessage().contains("branch into each other too often"));
        assertDoesNotThrow(() -> GbnfGrammar.check(branchingChain(10)));
    }

    /** {@code n} rules each referring to the next twice, leftmost ({@code r0 ::= r1 | r1 "a"}): 2^n paths from root. */
    private static String branchingChain(int n) {
        StringBuilder g = new StringBuilder("root ::= r0\n");
        for (int i = 0; i < n; i++) {
            g.append('r')
                    .append(i)
                    .append(" ::= r")
                    .append(i + 1)
                    .append(" | r")
                    .append(i + 1)
                    .append(" \"a\"\n");
        }
        return g.append('r').append(n).append(" ::= \"b\"\n").toString();
    }
}
