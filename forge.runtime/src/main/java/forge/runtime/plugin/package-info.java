/**
 * Plugin discovery: the boot layer's built-in providers, then one child {@link java.lang.ModuleLayer}
 * per jar or sub-folder of each plugins folder: backends, chat templates and sampler stages.
 *
 * <h2>Design</h2>
 * <ul>
 * <li>Built-in plugins (the llama.cpp backend, the template families) are modules of the boot
 *     layer. {@code ServiceLoader.load(ModuleLayer.boot(), S)} finds them.</li>
 * <li>A plugins folder ({@code plugins/} of the image, {@code --plugins-dir}, {@code ~/.forge/plugins})
 *     holds jars and folders. A jar is one plugin; a folder is one plugin with its own dependency
 *     jars. Each becomes a child layer of the boot layer with one class loader, so plugins cannot
 *     see each other and a broken one affects nobody else.</li>
 * <li>{@code ServiceLoader.load(layer, S)} also yields the parents' providers; the registry keeps
 *     only providers whose module is in that layer, so each is listed once, with its origin.</li>
 * <li>Native access is granted to plugin modules through their layer's controller, which requires
 *     {@code forge.runtime} itself to have native access (the launcher grants it).</li>
 * <li>Failures (a corrupt jar, an unresolvable dependency, a provider constructor that throws)
 *     are logged, kept with their reason and its cause ({@code zip END header not found}, not only
 *     "Error reading x.jar") for {@code forge plugins}, and skipped. Layers live as long as the
 *     process: providers are never unloaded.</li>
 * <li>Each provider is checked once, at discovery: a template provider's {@code family()},
 *     {@code variants()}, {@code version()}, a claim on an empty model and a render of each variant;
 *     a sampler provider's {@code stages()} (their names and parameters validated) and each stage made
 *     with its defaults. One that throws is reported failed and dropped. What passed is kept as
 *     {@link forge.runtime.plugin.Discovered#names()}, so that no later listing
 *     ({@code /v1/templates}, {@code forge plugins}) has to ask the provider again to know its names.</li>
 * <li>Two providers with the same template variant or stage name: the higher module version wins,
 *     on a tie the first found (boot, then the folders in order, each folder's entries by name); both
 *     sources carry a warning naming the other ({@link forge.runtime.plugin.PluginSource#warnings()}),
 *     which is logged. Never silent shadowing.</li>
 * <li>The plugin sampler stages are {@link forge.runtime.plugin.SamplerStages}: what a request's
 *     {@code samplers} may name besides the built-in stages.</li>
 * </ul>
 *
 * {@snippet :
 * PluginRegistry plugins = PluginRegistry.discover(List.of(home.resolve("plugins"), userPlugins));
 * plugins.templates().forEach(t -> System.out.println(t.provider().family() + " from " + t.location()));
 * plugins.sources().stream().filter(s -> !s.ok()).forEach(s -> System.out.println(s.failure().get()));
 * }
 */
package forge.runtime.plugin;
