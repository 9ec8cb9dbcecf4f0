/**
 * The generic chat-template plugin, for models that no family claims: the model's own Jinja
 * template ({@code tokenizer.chat_template}) rendered by {@code forge.template.jinja}, or ChatML when it has none.
 * One template instance per model, compiled once. Messages reach the template as transformers
 * passes them: a client's message exactly as sent ({@code ChatMessage.wire}: content-part lists,
 * {@code content: null}, unknown keys), tool-call arguments parsed to objects, except the shapes
 * probing the template found it cannot take ({@code forge.template.toolkit.TemplateCaps}: text parts
 * joined, null as "", developer as system, as llama-server gives them). A template that
 * does not parse still makes a template, one that refuses every conversation with the parser's
 * error and line ({@code ChatTemplate.unusable}), so the model is listed and answers 400 rather
 * than failing its load and the server's start.
 *
 * {@snippet :
 * // context.model() has no tokenizer.chat_template: ChatML
 * ChatTemplate chatml = new GenericTemplates().create("generic", context);
 * chatml.render(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "Hi"))));
 * // "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
 * }
 */
package forge.template.generic;
