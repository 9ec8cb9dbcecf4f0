package forge.lib.grammar;

/**
 * The schema is valid but uses a feature that a grammar cannot enforce ({@code not},
 * {@code uniqueItems}, a non-integer number bound, a regex lookahead, ...).
 */
public final class UnsupportedSchemaException extends SchemaGrammarException {

    private final String feature;

    public UnsupportedSchemaException(String pointer, String feature, String detail) {
        super(
                pointer,
                "unsupported JSON schema feature '" + feature + "' at '" + pointer + "'"
                        + (detail.isEmpty() ? "" : ": " + detail) + "; it cannot be enforced while decoding");
        this.feature = feature;
    }

    /** The keyword or construct, such as {@code not} or {@code format: email}. */
    public String feature() {
        return feature;
    }
}
