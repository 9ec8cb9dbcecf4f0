/**
 * Mustache support shared by the template plugins: {@link PromptMustache}
 * compiles and renders a plugin's files, and a template class that renders one file extends
 * {@link MustacheTemplate}.
 *
 * {@snippet :
 * Mustache chatml = PromptMustache.compile(QwenTemplate.class, "qwen", "qwen2.5");
 * String prompt = PromptMustache.render(chatml, view);
 * }
 */
package forge.template.mustache;
