/**
 * The Llama 3.x chat-template plugin. The Java side computes what the official Jinja computes
 * (the system block and its date, where the tools go, each turn's role, body and end token); the
 * one {@code llama3.mustache} under {@code META-INF/forge/templates/llama/} lays the text out,
 * because 3.1 and 3.3 ship the same template and 3.2 differs only in the date it falls back to
 * and in not knowing {@code builtin_tools}.
 *
 * <p>Output is parsed the way Llama 3 writes calls: an answer that is one
 * {@code {"name": ..., "parameters": {...}}} object is a call, and so is whatever follows
 * {@code <|python_tag|>} (a built-in {@code name.call(key="value")}, JSON, or else Python code for
 * the {@code python} tool).
 *
 * {@snippet :
 * ChatTemplate llama = new LlamaTemplates().create("llama3.1", context);
 * llama.render(new ChatPrompt(List.of(ChatMessage.of(Role.USER, "Hi")), List.of(), true,
 *         Map.of("date_string", "05 Mar 2025")));
 * // "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\n"
 * // + "Today Date: 05 Mar 2025\n\n<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
 * // + "<|start_header_id|>assistant<|end_header_id|>\n\n"
 * }
 */
package forge.template.llama;
