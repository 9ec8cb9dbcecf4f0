/**
 * Text as Python and llama.cpp's grammars spell it: {@link forge.lib.text.PythonJson} (Python's
 * {@code json.dumps} and a reader), {@link forge.lib.text.PythonValues} (Python's {@code str},
 * {@code repr}, truth and float formatting), {@link forge.lib.text.PythonText} (string methods
 * with Python's whitespace), {@link forge.lib.text.Gbnf} (GBNF literals). Pure functions of their
 * arguments; no state.
 */
package forge.lib.text;
