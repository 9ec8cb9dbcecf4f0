/**
 * Mustache support shared by the template plugins.
 *
 * {@snippet :
 * Mustache chatml = PromptMustache.compile(QwenTemplate.class, "qwen", "qwen2.5");
 * String prompt = PromptMustache.render(chatml, view);
 * }
 */
package forge.template.mustache;
