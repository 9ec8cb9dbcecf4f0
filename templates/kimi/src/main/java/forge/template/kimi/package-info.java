/**
 * The Kimi chat-template plugin. The Java side prepares each turn (the default system turn, role
 * names, tool-call ids {@code functions.NAME:IDX}, tool-result ids); the {@code .mustache} files
 * under {@code META-INF/forge/templates/kimi/} lay the text out. Tool calls come back from the
 * model as
 * {@code <|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{json}<|tool_call_end|><|tool_calls_section_end|>}
 * and become OpenAI calls whose id is {@code functions.NAME:IDX}, as llama.cpp names them.
 *
 * {@snippet :
 * ChatTemplate kimi = new KimiTemplates().create("kimi-k2-instruct", context);
 * kimi.render(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "Hi"))));
 * // "<|im_system|>system<|im_middle|>You are Kimi, an AI assistant created by Moonshot AI.<|im_end|>\n"
 * // + "<|im_user|>user<|im_middle|>Hi<|im_end|><|im_assistant|>assistant<|im_middle|>"
 * }
 */
package forge.template.kimi;
