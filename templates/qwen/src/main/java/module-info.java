/**
 * Qwen's chat templates: {@code qwen2.5} and {@code qwen3} (ChatML with {@code <tool_call>} JSON
 * and, for Qwen 3, {@code <think>} reasoning), {@code qwen3.5} and {@code qwen3-coder} (tool calls
 * in XML), rendered byte-identical to the official templates.
 *
 * @provides forge.api.template.ChatTemplateProvider
 */
module forge.template.qwen {
    // forge.api comes with the toolkit, whose API speaks its types (requires transitive).
    requires forge.template.toolkit;
    requires forge.template.mustache;

    provides forge.api.template.ChatTemplateProvider with
            forge.template.qwen.QwenTemplates;
}
