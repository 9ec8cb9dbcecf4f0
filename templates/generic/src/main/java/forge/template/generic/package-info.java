/**
 * The generic chat-template plugin: ChatML for models that no family claims.
 *
 * {@snippet :
 * ChatTemplate chatml = new GenericTemplates().create("generic", context);
 * chatml.render(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "Hi"))));
 * // "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
 * }
 */
package forge.template.generic;
