/**
 * A leaf library: Python's values ({@code json.dumps}, {@code str}/{@code repr}, truth, string
 * methods) as official chat templates print them, a JSON reader that keeps what Python keeps, and
 * GBNF literals. The template toolkit, the Jinja engine and the grammars all write this text, so it
 * lives below them; it provides and uses no service.
 */
module forge.lib.text {
    // PythonJson speaks forge.api's ToolCall and TemplateException in its API.
    requires transitive forge.api;

    exports forge.lib.text;
}
