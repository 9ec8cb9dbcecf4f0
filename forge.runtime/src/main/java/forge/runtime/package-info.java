/**
 * ForgeLM's runtime, assembled: plugins discovered, a backend chosen, templates ready.
 *
 * {@snippet :
 * RuntimeConfig config = new RuntimeConfig(RuntimeConfig.defaultHome(), List.of(Path.of("plugins")), "",
 *         RuntimeConfig.settingsFromSystemProperties());
 * try (ForgeRuntime runtime = ForgeRuntime.start(config)) {
 *     ModelCatalog catalog = new ModelCatalog(CatalogConfig.builder(runtime.backend(), runtime.templates()).build());
 *     ...
 * }
 * }
 */
package forge.runtime;
