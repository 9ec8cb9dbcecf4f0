package forge.lib.grammar;

import forge.api.ForgeException;

/**
 * A Lark grammar that cannot become a GBNF grammar: malformed, or using a construct outside the
 * subset {@link LarkGrammar} translates. The message names the construct and its line; a grammar is
 * never dropped in silence, so a tool's output is never left unconstrained in its place.
 */
public final class LarkGrammarException extends ForgeException {

    private final String where;

    LarkGrammarException(String where, String message) {
        super("Lark grammar, " + where + ": " + message);
        this.where = where;
    }

    /** Where in the grammar, such as {@code line 3}. */
    public String where() {
        return where;
    }
}
