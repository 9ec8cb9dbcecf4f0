/**
 * Google's Gemma chat templates: {@code gemma2} (Gemma 2 and 3: user/model turns, no system role,
 * strict alternation) and {@code gemma4} (system turn, tool declarations, a thought channel and
 * {@code <|tool_call>call:name{...}} calls), rendered byte-identical to the official templates.
 *
 * @provides forge.api.template.ChatTemplateProvider
 */
module forge.template.gemma {
    // forge.api comes with the toolkit, whose API speaks its types (requires transitive).
    requires forge.template.toolkit;
    requires forge.template.mustache;

    provides forge.api.template.ChatTemplateProvider with
            forge.template.gemma.GemmaTemplates;
}
