package forge.lib.grammar;

import forge.api.ForgeException;

/**
 * A JSON Schema that cannot become a grammar: either it is invalid, or it uses a feature that
 * decoding cannot enforce. Never answered with an unconstrained generation instead.
 */
public abstract sealed class SchemaGrammarException extends ForgeException
        permits InvalidSchemaException, UnsupportedSchemaException {

    private final String pointer;

    SchemaGrammarException(String pointer, String message) {
        super(message);
        this.pointer = pointer;
    }

    /** Where in the schema, as a JSON Pointer (RFC 6901); empty for the whole schema. */
    public String pointer() {
        return pointer;
    }
}
