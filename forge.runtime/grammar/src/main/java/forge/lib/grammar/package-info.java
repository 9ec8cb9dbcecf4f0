/**
 * Grammars for constrained decoding: JSON Schema to GBNF (after llama.cpp's
 * {@code json_schema_to_grammar}), Lark to GBNF (the grammars of OpenAI's freeform {@code custom}
 * tools, such as Codex's {@code apply_patch}) and a GBNF checker that reports where a grammar is
 * wrong before any generation starts.
 *
 * <h2>Design</h2>
 * <ul>
 * <li><b>Valid by construction, or refused.</b> A schema keyword the grammar cannot enforce
 *     ({@code not}, {@code uniqueItems}, a fractional number bound, an unanchored pattern, ...)
 *     throws {@link forge.lib.grammar.UnsupportedSchemaException} naming it, and a malformed
 *     schema throws {@link forge.lib.grammar.InvalidSchemaException} with a JSON Pointer:
 *     never a silently unconstrained answer. Plain annotations ({@code title},
 *     {@code description}, {@code default}, ...) are ignored.</li>
 * <li><b>Several schemas, one grammar.</b> A {@link forge.lib.grammar.JsonSchemaGrammar}
 *     builder adds each tool's parameters under its own rule-name prefix (its {@code $ref}s too),
 *     and hand-written rules beside them, such as a chat template's tool-call syntax.</li>
 * <li><b>Prefix validity only.</b> The grammar admits only prefixes of valid output, and
 *     end-of-generation only once the output is complete; a generation cut by {@code max_tokens}
 *     can still be incomplete.</li>
 * <li><b>{@code oneOf} is {@code anyOf}</b>, as in llama.cpp: overlapping alternatives are not
 *     made exclusive.</li>
 * <li><b>Literals as llama.cpp writes them.</b> {@code const}, {@code enum} and property names are
 *     compact {@code json.dumps} text ({@code 2.0} stays {@code 2.0}, as llama.cpp's
 *     {@code value.dump()} writes it) quoted by the one GBNF literal escaper; both come from the
 *     template toolkit ({@code forge.template.toolkit}), which the chat templates' tool-call
 *     grammars use too, so the two halves of a tool grammar escape alike.</li>
 * <li><b>Lark: the subset tool grammars use, or refused.</b> {@link forge.lib.grammar.LarkGrammar}
 *     translates rules, literals, regex terminals (through the same regex reader as schema
 *     {@code pattern}s, in its plain-text mode), repetitions, {@code %import common} and
 *     {@code %ignore}; anything else is a {@link forge.lib.grammar.LarkGrammarException} naming
 *     the construct and its line. Its rules can spell the text as a JSON string holds it, so a chat
 *     template's JSON tool call ({@code {"input": "..."}}) carries a freeform tool's text under the
 *     grammar; every rule is named after the caller's name, so they sit beside a schema's.</li>
 * <li><b>A module of its own.</b> Pure text work with no native code and no state, used by the
 *     server ({@code forge.http}) alone: it needs nothing of the runtime.</li>
 * </ul>
 *
 * {@snippet :
 * String gbnf = JsonSchemaGrammar.convert(Map.of("type", "object",
 *         "properties", Map.of("city", Map.of("type", "string", "maxLength", 20)),
 *         "required", List.of("city")));
 * // root ::= "{" space root-city-kv space "}" ...
 *
 * JsonSchemaGrammar tools = JsonSchemaGrammar.builder();
 * String argsRule = tools.addSchema("get-weather-args", parameters); // "get-weather-args"
 * tools.addRule("root", template.toolCallGrammar(...));
 * String grammar = tools.build();
 *
 * String patch = LarkGrammar.rules(larkDefinition, "tool0-input", LarkGrammar.Encoding.JSON_STRING);
 * // tool0-input ::= tool0-input-start ... (the text, escaped as inside a JSON string)
 * }
 */
package forge.lib.grammar;
