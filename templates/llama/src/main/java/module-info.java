/**
 * Meta's Llama 3.x chat templates: {@code llama3.1}, {@code llama3.2} and {@code llama3.3}
 * (header-token turns, tools as indented JSON in the first user turn, calls as
 * {@code {"name": ..., "parameters": ...}} JSON or {@code <|python_tag|>} built-in calls),
 * rendered byte-identical to the official templates.
 *
 * @provides forge.api.template.ChatTemplateProvider
 */
module forge.template.llama {
    // forge.api comes with the toolkit, whose API speaks its types (requires transitive).
    requires forge.template.toolkit;
    requires forge.template.mustache;

    provides forge.api.template.ChatTemplateProvider with
            forge.template.llama.LlamaTemplates;
}
