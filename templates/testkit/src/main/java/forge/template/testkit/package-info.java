/**
 * The contract test every chat-template family runs.
 *
 * {@snippet :
 * class QwenTemplatesTest implements ChatTemplateContract {
 *     public ChatTemplateProvider provider() { return new QwenTemplates(); }
 * }
 * }
 */
package forge.template.testkit;
