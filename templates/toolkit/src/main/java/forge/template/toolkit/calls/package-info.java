/**
 * Reading a model's output back, and making it write calls: each tool-call syntax a family
 * writes, defined once, its streaming parser and its GBNF grammar side by side.
 *
 * <h2>Design</h2>
 * <ul>
 * <li><b>A syntax is one object.</b> {@link forge.template.toolkit.calls.ToolCallSyntax} is
 *     sealed, with one implementation per syntax: {@link forge.template.toolkit.calls.HermesToolCalls}
 *     (Qwen 2.5/3, Hermes, ChatML and Jinja templates that write {@code <tool_call>}),
 *     {@link forge.template.toolkit.calls.LlamaToolCalls} (Llama 3 JSON and {@code <|python_tag|>}),
 *     {@link forge.template.toolkit.calls.QwenXmlToolCalls} (Qwen 3.5 and Qwen3-Coder),
 *     {@link forge.template.toolkit.calls.Gemma4ToolCalls} and
 *     {@link forge.template.toolkit.calls.KimiToolCalls}. Those four put their calls between an
 *     opening and a closing marker, so they extend {@code MarkupToolCalls}, which makes their
 *     triggers and parser from the two markers and a block decoder. Its three methods answer
 *     {@link forge.api.template.ChatTemplate}'s {@code parser}, {@code toolCallGrammar} and
 *     {@code toolCallTriggers}, and each syntax's tests check that what its grammar admits is what
 *     its parser reads.</li>
 * <li><b>A template names its syntax once.</b> A family template is a
 *     {@link forge.template.toolkit.calls.ToolCallingTemplate}: it says which syntax it writes and
 *     which reasoning markers it uses, and the interface's default methods answer the three
 *     methods from them; no template forwards them itself.</li>
 * <li><b>Tools on any model.</b> {@link forge.template.toolkit.calls.GenericToolCalls} wraps a
 *     template that has no syntax of its own (llama-server's built-in formats, a model's Jinja
 *     template that never writes calls): the tools described in the system turn, calls in the Hermes
 *     syntax, earlier calls and results rewritten as text the template can render. The server wraps
 *     a request's template in it when tools are offered, unless {@code --strict}.</li>
 * <li><b>Reasoning is the family's.</b> Which markers open reasoning, and whether the prompt
 *     already opened them, is the template's to say ({@link forge.template.toolkit.calls.Reasoning});
 *     the syntax combines it with its call markers in one
 *     {@link forge.template.toolkit.calls.MarkupParser}.</li>
 * <li><b>One streaming machine.</b> {@link forge.template.toolkit.calls.MarkupParser} holds back
 *     text that may be the start of a marker, so markup never leaks into content; a block that is
 *     not a call stays content, markup included; JSON calls stream their arguments as they are
 *     written. The syntaxes only say where blocks are and how to decode one.</li>
 * <li><b>One JSON call.</b> Hermes/Qwen and Llama 3 write the same JSON object under different
 *     keys and markers: {@link forge.template.toolkit.calls.JsonCall} is its one decoder and its
 *     one grammar rule, tool names quoted as {@code json.dumps} quotes them.</li>
 * <li><b>Grammars take the caller's argument rules.</b> A syntax whose arguments are one JSON
 *     object references the per-tool rule the caller built from the tool's schema
 *     ({@code forge.lib.grammar}); a syntax that writes arguments otherwise (Qwen's XML,
 *     Gemma's notation) types them itself.</li>
 * </ul>
 *
 * {@snippet :
 * // A family template: its reasoning markers, the toolkit's syntax; parser, toolCallGrammar and
 * // toolCallTriggers follow from them.
 * final class QwenTemplate implements ToolCallingTemplate {
 *     public ToolCallSyntax toolCallSyntax() {
 *         return HermesToolCalls.SYNTAX;
 *     }
 *
 *     public Reasoning reasoning(ChatPrompt prompt) {
 *         return new Reasoning("<think>", "</think>", false);
 *     }
 *     ...
 * }
 * template.toolCallTriggers();   // ["<tool_call>"]
 * template.toolCallGrammar(tools, argumentRules, true);
 * // root ::= tc-call ("\n" tc-call)*
 * // tc-call ::= "<tool_call>\n{\"name\": " ("\"get_weather\", \"arguments\": " tool0-args) "}\n</tool_call>"
 * }
 */
package forge.template.toolkit.calls;
