/**
 * The contract test every chat-template family runs.
 *
 * {@snippet :
 * class LlamaTemplatesTest extends ChatTemplateContract {
 *     LlamaTemplatesTest() {
 *         super(new LlamaTemplates(), variant -> LlamaTemplate.CAPS);
 *     }
 * }
 * }
 */
package forge.template.testkit;
