/**
 * The Qwen chat-template plugin. The Java side prepares each turn (what the official Jinja
 * computes: the system block, tool JSON, reasoning split, tool-response grouping); the
 * {@code .mustache} files under {@code META-INF/forge/templates/qwen/} lay the text out.
 *
 * {@snippet :
 * ChatTemplate qwen = new QwenTemplates().create("qwen3", context);
 * qwen.render(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "Hi"))));
 * // "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
 * }
 */
package forge.template.qwen;
