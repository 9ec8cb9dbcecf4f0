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
 * <p>llama-server's built-in chat formats, by the names llama.cpp gives them ({@code llama2},
 * {@code mistral-v7}, {@code phi3}, ... every name of {@code LLM_CHAT_TEMPLATES} in llama.cpp's
 * {@code src/llama-chat.cpp}), are variants of this family too, for users coming from
 * llama-server: {@code chatml} is the ChatML above, and each other name a Jinja template in
 * {@code META-INF/forge/templates/generic/llama-server/} that mirrors the C++ branch of
 * {@code llm_chat_apply_template} for it, listed in that folder's {@code index} with the markers
 * that end the model's turn. They render byte for byte as llama-server does without
 * {@code --jinja} (plugins/llamacpp's {@code BuiltinChatTemplatesTest} compares them with the real
 * {@code llama_chat_apply_template}), and like llama.cpp's they render roles and text only: no
 * tools, no tool calls. A family's variant of the same name ({@code kimi-k2}) wins over this one.
 *
 * {@snippet :
 * // context.model() has no tokenizer.chat_template: ChatML
 * ChatTemplate chatml = new GenericTemplates().create("generic", context);
 * chatml.render(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "Hi"))));
 * // "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
 *
 * // llama-server's built-in llama2 format, whatever the model's own template
 * new GenericTemplates().create("llama2", context).render(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "Hi"))));
 * // "[INST] Hi [/INST]"
 * }
 */
package forge.template.generic;
