/**
 * Kimi's chat templates: {@code kimi-k2} (the original Kimi K2 template) and
 * {@code kimi-k2-instruct} (the revised K2 Instruct one), rendered byte-identical to the official
 * templates, with tool calls in Kimi's section tokens parsed back into OpenAI calls.
 *
 * @provides forge.api.template.ChatTemplateProvider
 */
module forge.template.kimi {
    // forge.api comes with the toolkit, whose API speaks its types (requires transitive).
    requires forge.template.toolkit;
    requires forge.template.mustache;

    provides forge.api.template.ChatTemplateProvider with
            forge.template.kimi.KimiTemplates;
}
