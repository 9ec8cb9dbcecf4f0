/**
 * Python's values and JSON as official chat templates print them, and GBNF literals: the one
 * implementation of each that every template plugin, the Jinja engine and the JSON-Schema
 * grammar use.
 *
 * {@snippet :
 * PythonJson.dumps(PythonJson.parse("{\"a\": [1.0, null]}"));   // {"a": [1.0, null]}
 * PythonValues.str(List.of("x", true));                          // ['x', True]
 * PythonText.split("a</think>b", "</think>", -1);                // ["a", "b"]
 * Gbnf.literal("<tool_call>\n");                                 // "<tool_call>\n", quoted for GBNF
 * }
 */
package forge.template.toolkit;
