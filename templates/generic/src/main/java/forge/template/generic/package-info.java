/**
 * The generic chat-template plugin, for models that no family claims: the model's own Jinja
 * template ({@code tokenizer.chat_template}) rendered by {@code forge.template.jinja}, or ChatML when it has none.
 * One template instance per model, compiled once.
 *
 * {@snippet :
 * // context.model() has no tokenizer.chat_template: ChatML
 * ChatTemplate chatml = new GenericTemplates().create("generic", context);
 * chatml.render(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "Hi"))));
 * // "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
 * }
 */
package forge.template.generic;
