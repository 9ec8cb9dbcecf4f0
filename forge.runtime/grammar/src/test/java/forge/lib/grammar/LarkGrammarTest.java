package forge.lib.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The Lark translation read back by {@link GbnfMatcher}: Codex's own {@code apply_patch} grammar
 * and a calculator accept what Lark accepts and refuse the rest, as plain text and as a JSON
 * string's content; constructs outside the subset are refused with their line.
 */
class LarkGrammarTest {

    /** Codex's apply_patch grammar, its source comment dropped: the text Codex sends. */
    static String applyPatch() {
        try (InputStream in = LarkGrammarTest.class.getResourceAsStream("apply_patch.lark")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .lines()
                    .filter(l -> !l.startsWith("//"))
                    .collect(Collectors.joining("\n", "", "\n"));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static final List<String> PATCHES = List.of(
            "*** Begin Patch\n*** Add File: hello.txt\n+Hello world\n+\n*** End Patch\n",
            "*** Begin Patch\n*** Update File: src/app.py\n*** Move to: src/main.py\n@@ def greet():\n-print(\"Hi\")\n"
                    + "+print(\"Hello, world!\")\n \treturn\n*** End of File\n*** Delete File: obsolete.txt\n*** End Patch",
            "*** Begin Patch\n*** Update File: a\\b.txt\n@@\n  x = \"\\n\"\n*** Update File: c\n*** End Patch\n");

    static final List<String> NOT_PATCHES = List.of(
            "",
            "*** Begin Patch\n*** End Patch\n", // no hunk
            "*** Begin Patch\n*** Add File: a\n*** End Patch\n", // an added file needs lines
            "*** Begin Patch\n*** Add File: a\nno plus\n*** End Patch\n",
            "*** Begin Patch\n*** Delete File: \n*** End Patch\n", // empty file name
            "*** Begin Patch\n*** Update File: a\n@@\nx\n*** End Patch\n", // a change line without its prefix
            "*** Begin Patch\n*** Delete File: a\n*** End Patch\n\n", // one newline at most
            "*** Begin Patch\n*** Delete File: a\n");

    static final ObjectMapper JSON = new ObjectMapper();

    /** {@code text} as it stands between the quotes of a JSON string. */
    static String jsonContent(String text) throws JsonProcessingException {
        String quoted = JSON.writeValueAsString(text);
        return quoted.substring(1, quoted.length() - 1);
    }

    /** A grammar whose root is the JSON string of the text {@code rules} (named {@code t}) matches. */
    static String jsonString(String rules) {
        return "root ::= \"\\\"\" t \"\\\"\"\n" + rules;
    }

    @Test
    void codexApplyPatchGrammarAcceptsPatchesAndNothingElse() {
        String gbnf = LarkGrammar.toGbnf(applyPatch());
        for (String patch : PATCHES) {
            assertTrue(GbnfMatcher.matches(gbnf, patch), patch + "\n" + gbnf);
        }
        for (String bad : NOT_PATCHES) {
            assertFalse(GbnfMatcher.matches(gbnf, bad), bad);
        }
    }

    @Test
    void asAJsonStringTheGrammarMatchesTheEscapedPatch() throws Exception {
        String gbnf = jsonString(LarkGrammar.rules(applyPatch(), "t", LarkGrammar.Encoding.JSON_STRING));
        GbnfGrammar.check(gbnf);
        for (String patch : PATCHES) {
            assertTrue(GbnfMatcher.matches(gbnf, JSON.writeValueAsString(patch)), patch);
            // Raw newlines and quotes are not JSON: the unescaped text is refused.
            assertFalse(GbnfMatcher.matches(gbnf, "\"" + patch + "\""), patch);
        }
        for (String bad : NOT_PATCHES) {
            assertFalse(GbnfMatcher.matches(gbnf, JSON.writeValueAsString(bad)), bad);
        }
        // Every rule is named after the caller's name, so several tools' rules sit in one grammar.
        for (String line : gbnf.split("\n")) {
            assertTrue(line.startsWith("root ") || line.startsWith("t ") || line.startsWith("t-"), line);
        }
    }

    static final String CALCULATOR = """
            // A tiny calculator language: left-recursive, as Lark grammars write it.
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
    void aCalculatorWithLeftRecursionImportsAndIgnoredBlanks() {
        String gbnf = LarkGrammar.toGbnf(CALCULATOR);
        for (String ok : List.of("1", "1+2", " 1 + 2 * (x - 3.5e2) / -y ", "((a))", "2 * -3", "10.5")) {
            assertTrue(GbnfMatcher.matches(gbnf, ok), ok + "\n" + gbnf);
        }
        for (String bad : List.of("", "1 +", "(1", "1 2", "a b", "+1", "1..2", "X")) {
            assertFalse(GbnfMatcher.matches(gbnf, bad), bad);
        }
    }

    @Test
    void theSubsetsConstructs() {
        String gbnf = LarkGrammar.toGbnf("""
                start: greeting ("," name)~2..3 [ "!" ] KW? LETTERS -> alias
                greeting.2: "hi"i | "yo"
                !name: "a".."c"+
                KW: "kw"
                LETTERS: /[xy]{2}/
                """);
        assertTrue(GbnfMatcher.matches(gbnf, "Hi,a,bc!kwxy"));
        assertTrue(GbnfMatcher.matches(gbnf, "yo,a,b,cxx"));
        assertFalse(GbnfMatcher.matches(gbnf, "yo,axx"), "at least two names");
        assertFalse(GbnfMatcher.matches(gbnf, "yo,a,b,c,axx"), "at most three");
        assertFalse(GbnfMatcher.matches(gbnf, "YO,a,bxx"), "only 'hi' is case-insensitive");
        assertFalse(GbnfMatcher.matches(gbnf, "hi,a,dxy"), "d is out of the range");
    }

    @Test
    void regexTerminalsReadAsPythonDoes() {
        // '.' is anything but a newline; a negated class excludes only what it names; quotes and
        // backslashes are characters like others; '\/' is Lark's escape of the delimiter.
        String gbnf = LarkGrammar.toGbnf("start: /.+/ \"\\n\" /[^a]*/ /\"\\\\\\/\\d?/\n");
        assertTrue(GbnfMatcher.matches(gbnf, "x\"\\y\n\nbc\"\\/"), gbnf);
        assertTrue(GbnfMatcher.matches(gbnf, "q\n\"\\/7"));
        assertFalse(GbnfMatcher.matches(gbnf, "\n\n\"\\/"), "'.+' needs a character that is not a newline");
        assertFalse(GbnfMatcher.matches(gbnf, "q\na\"\\/"));
    }

    @Test
    void aRegexSyntaxGrammarIsTheTextTheExpressionMatches() throws Exception {
        String gbnf =
                jsonString(LarkGrammar.regexRules("[a-z]+\\n(\"[0-9]\")?", "t", LarkGrammar.Encoding.JSON_STRING));
        assertTrue(GbnfMatcher.matches(gbnf, JSON.writeValueAsString("abc\n\"7\"")), gbnf);
        assertTrue(GbnfMatcher.matches(gbnf, JSON.writeValueAsString("abc\n")));
        assertFalse(GbnfMatcher.matches(gbnf, JSON.writeValueAsString("abc")));
    }

    @Test
    void jsonStringClassesAdmitEscapesForWhatJsonMustEscape() throws Exception {
        String gbnf = jsonString(
                LarkGrammar.rules("start: /[^x]*/ \"x\" /[\\t-\"]*/\n", "t", LarkGrammar.Encoding.JSON_STRING));
        String text = "a\"\\\n\r\t\u00e9\ud83d\ude00x\t !\"";
        assertTrue(GbnfMatcher.matches(gbnf, "\"" + jsonContent(text) + "\""), gbnf);
        assertFalse(
                GbnfMatcher.matches(gbnf, "\"" + jsonContent("xx") + "\""),
                "x is out of the first class and once only");
        assertFalse(GbnfMatcher.matches(gbnf, "\"" + jsonContent("x#") + "\""), "'#' is past the quote");
        // Other control characters are never written raw, nor through a class.
        assertFalse(GbnfMatcher.matches(gbnf, "\"\u0001x\""));
        assertFalse(GbnfMatcher.matches(gbnf, "\"\\u0001x\""));
        // A literal keeps every character, controls as \\u00XX.
        String lit = jsonString(LarkGrammar.rules("start: \"\\x01\\b\\\"\"\n", "t", LarkGrammar.Encoding.JSON_STRING));
        assertTrue(GbnfMatcher.matches(lit, JSON.writeValueAsString("\u0001\b\"")), lit);
    }

    static String refusal(String lark) {
        return assertThrows(LarkGrammarException.class, () -> LarkGrammar.toGbnf(lark))
                .getMessage();
    }

    @Test
    void constructsOutsideTheSubsetAreRefusedWithTheirLine() {
        assertEquals(
                "Lark grammar, line 2: '%declare' is not supported (only %import common.NAME and %ignore are)",
                refusal("start: \"a\"\n%declare FOO\n"));
        assertTrue(
                refusal("start: A\nA: /a/i\n").startsWith("Lark grammar, line 2: regular-expression flags ('/.../i')"));
        assertTrue(refusal("start: x{\"a\"}\n").contains("line 1: rule templates"));
        assertTrue(refusal("start: \"a\"\n\n_sep{x}: x\n").contains("line 3: rule templates"));
        assertTrue(refusal("start: \"a\" b\n").equals("Lark grammar, line 1: 'b' is used but not defined"));
        assertTrue(refusal("start: NUMBER\n").contains("'%import common.NUMBER'"));
        assertTrue(refusal("%import python.NAME\nstart: NAME\n").contains("line 1: '%import python' is not supported"));
        assertTrue(refusal("%import common.NOPE\nstart: NOPE\n").contains("no terminal 'NOPE'"));
        assertTrue(refusal("begin: \"a\"\n").contains("no 'start' rule"));
        assertTrue(refusal("start: \"a\"\nx: \"b\"\n\ny: /a(?=b)/\n")
                .startsWith("Lark grammar, line 4: the regular expression /a(?=b)/"));
        assertTrue(refusal("start: \"a\" ~ 5000\n").contains("over the limit of 2000"));
        assertTrue(refusal("start: /a{1,5000}/\n").contains("line 1"));
        assertTrue(refusal("start: \"ab\"..\"c\"\n").contains("one-character literals"));
        assertTrue(refusal("start: (\"a\"\n").contains("expected ')'"));
        assertTrue(refusal("start: \"a\n").contains("line 1: the string literal is not closed"));
        assertTrue(refusal("start: \"a\"\nstart: \"b\"\n").contains("line 2: 'start' is defined twice"));
        assertTrue(refusal("start = \"a\"\n").contains("not with '='"));
        assertTrue(refusal("start: \"(\" ".repeat(1) + "(".repeat(200) + "\"a\"" + ")".repeat(200) + "\n")
                .contains("nest more than"));
        // Left recursion through another rule is llama.cpp's to refuse: named, not silently dropped.
        assertTrue(refusal("start: a\na: b \"x\" | \"y\"\nb: a \"z\"\n").contains("left recursive"));
    }

    @Test
    void commentsAndContinuedAlternatives() {
        String gbnf = LarkGrammar.toGbnf("""
                // leading comment
                start: "a"   // trailing comment

                    // a comment between alternatives
                    | "b"
                    | ( "c"
                        "d" )
                """);
        for (String ok : List.of("a", "b", "cd")) {
            assertTrue(GbnfMatcher.matches(gbnf, ok), ok + "\n" + gbnf);
        }
        assertFalse(GbnfMatcher.matches(gbnf, "c"));
    }
}
