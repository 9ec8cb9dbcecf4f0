package forge.http.server;

import forge.runtime.catalog.ModelCatalog;

/**
 * What every generating door runs its requests with: the models, the metrics the run core keeps,
 * and how often a silent stream sends a keep-alive. (The plugin sampler stages a request may
 * name come with its body, {@link Fields}, which its parser reads.)
 *
 * @param catalog         the models served
 * @param metrics         where runs are counted
 * @param keepAliveMillis the silence after which a stream sends its keep-alive
 */
record RunContext(ModelCatalog catalog, ForgeMetrics metrics, long keepAliveMillis) {}
