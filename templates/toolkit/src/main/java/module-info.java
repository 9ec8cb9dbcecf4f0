/**
 * What ForgeLM's chat-template plugins share: Python's values ({@code json.dumps},
 * {@code str}/{@code repr}, truth, string methods) as official templates print them, GBNF
 * literals, and the streaming output parser with each tool-call syntax a family writes. A
 * library for template plugins and the grammar module; it provides and uses no service.
 */
module forge.template.toolkit {
    // Its parsers speak forge.api's types (OutputParser, ChatDelta, ToolCall) in their API.
    requires transitive forge.api;

    exports forge.template.toolkit;
    exports forge.template.toolkit.calls;
}
