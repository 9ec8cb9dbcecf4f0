/**
 * A model's own Jinja chat template rendered with Jinjava as transformers renders it with Jinja2.
 *
 * <p>Design notes. Jinjava is close to Jinja2 but not the same; the gaps that change the bytes
 * of official templates are closed here, each at the layer Jinjava lets us replace, never by
 * rewriting one template's text:
 * <ul>
 * <li>lexing: {@link forge.template.generic.jinja.WhitespaceControl} applies Jinja2's
 *     whitespace rules (markers, trim_blocks, lstrip_blocks, the dropped final newline) to the
 *     source before Jinjava parses it, Jinjava's own trimming off;</li>
 * <li>expressions: {@link forge.template.generic.jinja.PythonParser} is Jinjava's parser with
 *     Jinja2's grammar (precedence of {@code not}, keyword arguments, slices, string escapes,
 *     filter/test chains) and Python's {@code ==}, {@code +}, {@code and}, plugged in through the
 *     expression factory; {@link forge.template.generic.jinja.PythonSlice} slices;</li>
 * <li>values: Java {@code null} is Undefined and {@link forge.template.generic.jinja.PyNone} is
 *     {@code None}; {@link forge.template.generic.jinja.PythonValues} prints, compares, iterates
 *     and judges truth as Python does;</li>
 * <li>tags, tests, filters, methods: {@link forge.template.generic.jinja.PythonTags} ({@code for}
 *     with filters, {@code else}, {@code previtem}/{@code nextitem}, fresh scope per iteration;
 *     {@code if}; {@code filter} blocks), {@link forge.template.generic.jinja.PythonTests},
 *     {@link forge.template.generic.jinja.PythonFilters}, {@link forge.template.generic.jinja.PythonMethods}
 *     replace Jinjava's of the same names;</li>
 * <li>globals: {@code raise_exception}, {@code strftime_now}, {@code namespace}
 *     ({@link forge.template.generic.jinja.JinjaFunctions}), defined as variables too.</li>
 * </ul>
 * Printed values are never rendered again (Jinjava's nested interpretation is off: a message
 * containing {@code {{ ... }}} stays text). The template is parsed once per model and every
 * render gets its own interpreter over the shared tree. {@code JinjaFidelityTest} measures the
 * result against the golden corpus, {@code Jinja2SemanticsTest} each rule.
 *
 * {@snippet :
 * JinjaTemplate phi = new JinjaTemplate("generic", model.metadata().chatTemplate().orElseThrow(), "<s>", "<|endoftext|>");
 * phi.render(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "Hi"))));
 * // "<|user|>\nHi<|end|>\n<|assistant|>\n"
 * phi.endOfTurn();  // [<|endoftext|>, <|end|>]
 * }
 */
package forge.template.generic.jinja;
