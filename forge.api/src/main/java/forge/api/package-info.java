/**
 * The exception hierarchy shared by every ForgeLM module and plugin, and how to write, package
 * and install a plugin.
 *
 * <p>Everything thrown across a module boundary is a {@link forge.api.ForgeException}: a
 * {@link forge.api.BackendException} from native code, a {@link forge.api.SamplingException} when a
 * request's constraints leave no token (a {@link forge.api.SamplerStageException} when a plugin's
 * sampler stage failed), a {@link forge.api.TemplateException} from a chat template (shown to
 * clients as a 400 with the template's reason), a {@link forge.api.PluginException} from plugin
 * loading.
 *
 * {@snippet :
 * try {
 *     prompt = template.render(chat);
 * } catch (TemplateException e) {
 *     return badRequest(e.getMessage()); // the template's own reason
 * }
 * }
 *
 * <h2>Writing a plugin</h2>
 * A plugin is a named module (a jar with a {@code module-info.class}) that {@code requires forge.api}
 * and provides one or more of its services. Three kinds exist:
 * <table>
 * <caption>The plugin kinds and their {@code provides} lines</caption>
 * <tr><th>kind</th><th>{@code module-info.java}</th><th>the SPI's documentation</th></tr>
 * <tr><td>backend</td><td>{@code provides forge.api.backend.BackendProvider with ...;}</td>
 *     <td>{@link forge.api.backend}</td></tr>
 * <tr><td>chat template</td><td>{@code provides forge.api.template.ChatTemplateProvider with ...;}</td>
 *     <td>{@link forge.api.template}</td></tr>
 * <tr><td>sampler stages</td><td>{@code provides forge.api.sampler.SamplerProvider with ...;}</td>
 *     <td>{@link forge.api.sampler}</td></tr>
 * </table>
 * {@snippet :
 * module com.example.topa {
 *     requires forge.api;
 *     provides forge.api.sampler.SamplerProvider with com.example.topa.TopAProvider;
 * }
 * }
 * Declare services in {@code module-info.java} only (a {@code META-INF/services} file is not read for
 * a named module). A provider has a public no-argument constructor (or a public static
 * {@code provider()} method), keeps no state and does no work in it: the heavy object comes from
 * its {@code create} method. Working examples, built and tested against the forge.api jar alone:
 * {@code plugins/examples/template-example} and {@code plugins/examples/sampler-example} in the
 * source tree.
 *
 * <h2>What a plugin may require</h2>
 * {@code forge.api} (which needs only {@code java.base}) and {@code java.*} modules; and any library
 * of its own, shipped beside it (see below). Not ForgeLM's other modules ({@code forge.runtime},
 * {@code forge.http}, the built-in plugins): they would resolve, but they are not an API and change
 * with any release. Each plugin loads into a module layer of its own whose parent is the boot
 * layer, so plugins cannot see each other, and two plugins may bring different versions of the same
 * library (a plugin's own copy of a library comes first for it). A plugin whose own module is
 * already in the image is refused ("its modules are already built in"). Native access ({@code java.lang.foreign} downcalls) is granted to a plugin's modules as to
 * the built-in backend's.
 *
 * <h2>Packaging and installing</h2>
 * <ul>
 * <li>One jar, or one folder holding the plugin's jar and the jars it needs (its own
 *     dependencies), per plugin.</li>
 * <li>Put it into a plugins folder. They are searched in this order: the image's {@code plugins/}
 *     folder, each {@code --plugins-dir DIR} in the order given, then {@code ~/.forge/plugins};
 *     within a folder, its entries by name.</li>
 * <li>Compile with {@code javac --module-version 1.2.0} (Maven: {@code <compilerArgs>}; {@code jar
 *     --module-version} does the same): the version is shown by {@code forge plugins} and
 *     {@code GET /v1/templates}, and decides between two plugins that claim the same name.</li>
 * <li>{@code forge plugins} lists what was found, each provider, and every failure with its reason;
 *     without the server, {@code java -p <ForgeLM's jars> -m forge.runtime/forge.runtime.plugin.PluginCheck DIR}
 *     does the same for a folder.</li>
 * </ul>
 *
 * <h2>How names and claims are ranked</h2>
 * <ul>
 * <li><b>Backends</b>: every backend is probed; the usable one with the highest
 *     {@code priority()} serves, unless {@code --backend NAME} forces one.</li>
 * <li><b>Chat templates</b>: a model gets {@code --template NAME} when given; else the claims on
 *     its GGUF metadata ({@code TemplateClaim.Rule.METADATA}) beat the claims on its names
 *     ({@code NAME}), and within a rule the higher {@code confidence} wins; else {@code generic}.</li>
 * <li><b>Sampler stages</b> run only when a request names them in {@code samplers}; their names may
 *     not be those of the built-in stages.</li>
 * <li><b>The same template variant or stage name in two plugins</b>: the higher module version
 *     wins; on a tie (or with no versions) the first found in the search order above. The other
 *     keeps its remaining names; both are warned about in the log and in {@code forge plugins}.
 *     Never silent.</li>
 * <li><b>A provider that fails</b> (a constructor, {@code variants()}, a claim, a render of its
 *     variants, {@code stages()} or a stage made with its defaults throws, when the plugin is
 *     discovered) is reported failed with its reason and dropped; the rest of its jar and every other
 *     plugin load as usual.</li>
 * </ul>
 */
package forge.api;
