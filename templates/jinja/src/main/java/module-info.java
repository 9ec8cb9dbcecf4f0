/**
 * A self-contained interpreter of the Jinja that chat templates are written in, rendering as
 * transformers' {@code apply_chat_template} does with Jinja2: its sandboxed environment with
 * {@code trim_blocks}, {@code lstrip_blocks}, loop controls, the {@code generation} tag,
 * {@code tojson} as transformers defines it, {@code raise_exception} and {@code strftime_now},
 * bounded in output, steps and recursion. No third-party code: Python's values come from the
 * toolkit the family templates share. It provides and uses no service.
 */
module forge.template.jinja {
    // TemplateException, which JinjaException extends, so a plugin's render fails as every template's does.
    requires transitive forge.api;
    requires forge.template.toolkit;

    exports forge.template.jinja;
}
