/**
 * What ForgeLM's chat-template plugins share: the streaming output parser with each tool-call
 * syntax a family writes, the template families' metadata, and (transitively) the text library
 * {@code forge.lib.text} whose Python values and GBNF literals templates print. A library for
 * template plugins; it provides and uses no service.
 */
module forge.template.toolkit {
    // Its parsers speak forge.api's types (OutputParser, ChatDelta, ToolCall) in their API.
    requires transitive forge.api;
    // Templates and their tool-call syntaxes print Python's values and GBNF literals.
    requires transitive forge.lib.text;

    exports forge.template.toolkit;
    exports forge.template.toolkit.calls;
}
