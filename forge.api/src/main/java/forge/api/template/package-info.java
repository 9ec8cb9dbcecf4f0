/**
 * The chat-template SPI: conversations to prompt text, and model output back to content,
 * reasoning and tool calls.
 *
 * <p>A {@link forge.api.template.ChatTemplateProvider} serves one family and its variants; the
 * runtime picks one per model ({@code --template}, then the providers' {@link
 * forge.api.template.TemplateClaim claims} on the GGUF metadata, then on the model's names, then
 * {@code generic}).
 *
 * {@snippet :
 * ChatTemplate template = provider.create("qwen2.5", new TemplateContext(model, "", "<|im_end|>"));
 * String prompt = template.render(ChatPrompt.of(List.of(
 *         ChatMessage.of(Role.SYSTEM, "You are terse."),
 *         ChatMessage.of(Role.USER, "Hello"))));
 * OutputParser parser = template.parser(chat);
 * List<ChatDelta> deltas = parser.feed(generatedText);
 * }
 */
package forge.api.template;
