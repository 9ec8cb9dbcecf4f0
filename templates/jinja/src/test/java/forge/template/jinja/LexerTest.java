package forge.template.jinja;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Jinja2's whitespace rules and literals, on the tokens themselves (the expected texts are Jinja2 3.1's). */
class LexerTest {

    /** The text tokens, joined by '|', with each tag as its first token's text. */
    private static String texts(String source) {
        return Lexer.tokenize(source).stream()
                .filter(t -> t.kind() == Lexer.Kind.TEXT)
                .map(Lexer.Token::text)
                .collect(Collectors.joining("|"));
    }

    @Test
    void trimBlocksTakesOneNewlineAfterABlockOrComment() {
        assertEquals("a|\nb|c", texts("{% if x %}\na{% endif %}\n\nb{# c #}\nc"));
        assertEquals("x\n", texts("{{ v }}x\n{{ w }}")); // not after a variable
    }

    @Test
    void lstripBlocksTakesOnlyAWholeLinesIndent() {
        assertEquals("a\n|b", texts("a\n   {% if x %}b{% endif %}"));
        assertEquals("a   ", texts("a   {% if x %}{% endif %}"));
        assertEquals("\n  ", texts("\n  {{ v }}"));
        assertEquals("\n  |x", texts("\n  {%+ if v %}x{% endif %}"));
    }

    @Test
    void minusStripsAllWhitespaceAndPlusKeepsTheNewline() {
        assertEquals("a|b", texts("a \n {%- if x -%} \n b{% endif %}"));
        assertEquals("\nb", texts("{% if x +%}\nb{% endif %}"));
    }

    @Test
    void newlinesAreNormalisedAndTheLastOneGoes() {
        assertEquals("a\nb\nc", texts("a\r\nb\rc\n"));
    }

    @Test
    void rawIsTextAndLinesAreCounted() {
        assertEquals("{{ x }}", texts("{% raw %}{{ x }}{% endraw %}"));
        List<Lexer.Token> tokens = Lexer.tokenize("a\n{# two\nlines #}\n{{ x }}");
        assertEquals(
                4,
                tokens.stream()
                        .filter(t -> t.kind() == Lexer.Kind.VAR_BEGIN)
                        .findFirst()
                        .orElseThrow()
                        .line());
    }

    @Test
    void literalsArePythons() {
        List<Object> values = Lexer.tokenize("{{ 1_000 0.5 1e3 'a\\x41' \"b\\u00e9\" 100000000000000000000 }}").stream()
                .filter(t -> t.kind() != Lexer.Kind.VAR_BEGIN
                        && t.kind() != Lexer.Kind.VAR_END
                        && t.kind() != Lexer.Kind.EOF)
                .map(Lexer.Token::value)
                .toList();
        assertEquals(
                List.of(1000L, 0.5, 1000.0, "aA", "b\u00e9", new java.math.BigInteger("100000000000000000000")),
                values);
        assertEquals(
                1,
                assertThrows(JinjaException.class, () -> Lexer.tokenize("{{ 'open }}"))
                        .line());
    }

    @Test
    void anEndInsideBracketsIsNotTheTagsEnd() {
        assertEquals(
                List.of("{", "{", "}", "}"),
                Lexer.tokenize("{{ {'a': {'b': 1}} }}").stream()
                        .filter(t -> t.kind() == Lexer.Kind.OP
                                && (t.text().equals("{") || t.text().equals("}")))
                        .map(Lexer.Token::text)
                        .toList());
    }
}
