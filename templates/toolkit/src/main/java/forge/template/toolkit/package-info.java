/**
 * Python's values and JSON as official chat templates print them, and GBNF literals: the one
 * implementation of each that the template plugins, the Jinja engine and the JSON-Schema grammar
 * use.
 *
 * <h2>Design</h2>
 * <ul>
 * <li><b>Why a module of its own.</b> Official chat templates are Jinja run by Python, so a
 *     byte-identical prompt needs Python's answers for {@code tojson}, {@code |string},
 *     {@code {% if %}} and {@code str} methods, and every family needs the same ones. They used
 *     to live in {@code forge.api} (which a third-party plugin must build against, so it should
 *     hold only SPIs) and in five drifting copies inside the plugins; here there is one of each,
 *     each with its own tests, and a plugin that needs none of it does not depend on it. The
 *     module requires only {@code forge.api}.</li>
 * <li><b>One value model.</b> Values are JSON trees as {@link forge.lib.text.PythonJson}
 *     reads them: {@code Map} (order kept), {@code List}, {@code String}, {@code Boolean},
 *     integers, floats, and {@link forge.lib.text.PythonJson#NULL} (Java {@code null} is
 *     {@code None} too, as Jackson's trees have it). Python's other shapes have Java stand-ins: any
 *     collection or array is a list, {@link forge.lib.text.PythonValues.Tuple} a tuple. A
 *     template engine with values of its own (Jinja's Undefined, a namespace, a safe string) does
 *     not get a second implementation: it passes a <em>view</em> that maps them to these, or to an
 *     {@link forge.lib.text.PythonValues.Opaque} that says how they print and test.</li>
 * <li><b>{@code json.dumps} with its arguments.</b> {@link forge.lib.text.PythonJson#writer()}
 *     takes {@code ensure_ascii}, {@code indent} (a number or a string), {@code separators} and
 *     {@code sort_keys} as Python does (indented items are separated by {@code ","} unless
 *     separators say otherwise); {@link forge.lib.text.PythonJson#compact compact} is what
 *     OpenAI clients receive as arguments and what grammars spell JSON literals with; what is not
 *     JSON fails with Python's own {@code TypeError} wording.</li>
 * <li><b>CPython's semantics, tested against CPython.</b> Each test's expected text is what
 *     CPython 3 prints: {@code repr} picks its quote as Python does and escapes what
 *     {@code str.isprintable} rejects; floats print in {@code repr}'s shortest form
 *     ({@code 1e-05}, {@code 1e+16}, {@code nan}); whitespace is {@code str.isspace}'s (wider
 *     than Java's); {@code split(None, n)} keeps the rest as it is. Where the old copies differed
 *     from each other, CPython decided.</li>
 * <li><b>One GBNF literal escaper.</b> {@link forge.lib.text.Gbnf#literal} escapes
 *     {@code "} and {@code \} and writes CR, LF and tab as escapes. llama.cpp's
 *     {@code parse_char} decodes {@code \t}, {@code \r} and {@code \n} and also takes those
 *     characters raw inside quotes, so both spellings match the same text; escaping all three
 *     keeps each rule on one printable line, as {@code json-schema-to-grammar.cpp}'s
 *     {@code format_literal} already does for CR and LF. The tool-call syntaxes
 *     ({@link forge.template.toolkit.calls}) and the JSON-Schema grammar both use it.</li>
 * <li><b>What family providers share.</b> {@link forge.template.toolkit.TemplateFamily} holds a
 *     family's name and variants, refuses a variant the family has not with one message, and
 *     takes the claim steps every family takes, in their order ({@code claimInOrder}): the
 *     model's own template only when it is one of the family's official ones, else the names in
 *     its metadata, else the family's signs, else its id and aliases. A family adds only its own
 *     signs (its official templates, architectures, tokenizers).</li>
 * </ul>
 *
 * {@snippet :
 * Object tree = PythonJson.parse("{\"b\": [1.0, null], \"a\": \"é\"}");
 * PythonJson.dumps(tree);                                      // {"b": [1.0, null], "a": "é"}
 * PythonJson.writer().sortKeys(true).ensureAscii(true).indent(2).dumps(tree);
 * // {
 * //   "a": "&#92;u00e9",
 * //   "b": [
 * //     1.0,
 * //     null
 * //   ]
 * // }
 * PythonJson.compact(tree);                                    // {"b":[1.0,null],"a":"é"}
 * PythonValues.str(tree);                                      // {'b': [1.0, None], 'a': 'é'}
 * PythonValues.truthy(List.of());                              // false
 * PythonText.split("a</think>b", "</think>", -1);              // ["a", "b"]
 * Gbnf.literal("<tool_call>\n\t");                             // "<tool_call>\n\t", escaped for GBNF
 *
 * // An engine's own values, seen as Python's: here a Java null is Jinja's Undefined.
 * PythonValues.View jinja = PythonValues.view(v -> v == null ? new PythonValues.Opaque("Undefined", "", "Undefined", false) : v);
 * jinja.str(null);                                             // ""
 * jinja.repr(Arrays.asList(1, null));                          // [1, Undefined]
 * }
 */
package forge.template.toolkit;
