package forge.lib.grammar;

/** The schema is not valid JSON Schema at {@link #pointer()} (a wrong type, an unresolved {@code $ref}, ...). */
public final class InvalidSchemaException extends SchemaGrammarException {

    public InvalidSchemaException(String pointer, String message) {
        super(pointer, "invalid JSON schema at '" + pointer + "': " + message);
    }
}
