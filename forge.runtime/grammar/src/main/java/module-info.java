/**
 * A leaf library of grammars for constrained decoding: JSON Schema to GBNF (after llama.cpp's
 * {@code json_schema_to_grammar}), Lark to GBNF (freeform tools' grammars) and a GBNF checker that refuses, with a line and column, what
 * llama.cpp's grammar parser would. Pure text work, no native code: the server turns a request's
 * {@code response_format}, {@code grammar} and forced tool calls into one grammar here before any
 * token is generated.
 */
module forge.lib.grammar {
    // Its exceptions are forge.api's ForgeExceptions, which callers catch as such.
    requires transitive forge.api;
    // json.dumps for const and enum literals, and the one GBNF literal escaper.
    requires forge.lib.text;

    exports forge.lib.grammar;
}
