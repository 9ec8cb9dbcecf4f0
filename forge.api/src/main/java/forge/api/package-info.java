/**
 * The exception hierarchy shared by every ForgeLM module and plugin.
 *
 * <p>Everything thrown across a module boundary is a {@link forge.api.ForgeException}: a
 * {@link forge.api.BackendException} from native code, a {@link forge.api.TemplateException} from a
 * chat template (shown to clients as a 400 with the template's reason), a
 * {@link forge.api.PluginException} from plugin loading.
 *
 * {@snippet :
 * try {
 *     prompt = template.render(chat);
 * } catch (TemplateException e) {
 *     return badRequest(e.getMessage()); // the template's own reason
 * }
 * }
 */
package forge.api;
