/**
 * The Gemma chat-template plugin. {@code gemma2} is the short template Gemma 2 and Gemma 3 share;
 * {@code gemma4} is Gemma 4's, whose macros (tool declarations in Gemma's own notation, arguments
 * with {@code <|"|>} quotes, keys sorted as Jinja's {@code dictsort} sorts them) are computed in
 * Java by {@code Gemma4Notation}, while the {@code .mustache} files under
 * {@code META-INF/forge/templates/gemma/} lay out the turns.
 *
 * <p>Gemma 4's output is parsed as llama.cpp reads it: reasoning in
 * {@code <|channel>thought ... <channel|>}, calls as {@code <|tool_call>call:name{key:value}<tool_call|>}
 * turned into JSON arguments.
 *
 * {@snippet :
 * ChatTemplate gemma = new GemmaTemplates().create("gemma2", context);
 * gemma.render(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "Hi"))));
 * // "<bos><start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n"
 * }
 */
package forge.template.gemma;
