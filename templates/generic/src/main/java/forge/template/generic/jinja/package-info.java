/**
 * A model's own Jinja chat template rendered with Jinjava as transformers renders it with Jinja2.
 *
 * <p>Design notes. Jinjava is close to Jinja2 but not the same; the gaps that change the bytes
 * of official templates are closed here, each where it is cheapest: whitespace control and three
 * expressions whose precedence Jinjava reads differently are rewritten in the source before it is
 * parsed ({@link forge.template.generic.jinja.WhitespaceControl},
 * {@link forge.template.generic.jinja.PythonSyntax}); Python's string, dict and list methods are
 * answered by an EL resolver ({@link forge.template.generic.jinja.PythonMethods}); {@code tojson}
 * and {@code trim} are replaced by Python's; {@code raise_exception}, {@code strftime_now} and
 * {@code namespace} are globals; booleans print as {@code True}/{@code False}. The template is
 * parsed once per model and every render gets its own interpreter over the shared tree.
 * {@code JinjaFidelityTest} measures the result against the golden corpus.
 *
 * {@snippet :
 * JinjaTemplate phi = new JinjaTemplate("generic", model.metadata().chatTemplate().orElseThrow(), "<s>", "<|endoftext|>");
 * phi.render(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "Hi"))));
 * // "<|user|>\nHi<|end|>\n<|assistant|>\n"
 * phi.endOfTurn();  // [<|endoftext|>, <|end|>]
 * }
 */
package forge.template.generic.jinja;
