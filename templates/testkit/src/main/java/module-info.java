/**
 * The shared contract test of chat-template plugins (STYLE.md rule 21): a family's test class
 * implements {@link forge.template.testkit.ChatTemplateContract} and inherits its tests, which
 * render the golden corpus ({@code templates/golden}) through each of the family's variants.
 */
module forge.template.testkit {
    requires transitive forge.api;
    requires transitive forge.template.toolkit;
    requires transitive org.junit.jupiter.api;

    exports forge.template.testkit;
}
