/**
 * Mustache.java for ForgeLM's template plugins: one place that compiles a plugin's prompt
 * templates from its module without HTML escaping.
 */
module forge.template.mustache {
    // MustacheTemplate is a forge.api ChatTemplate.
    requires transitive forge.api;
    // Plugins use Mustache's types through this module's API.
    requires transitive com.github.mustachejava;

    exports forge.template.mustache;
}
