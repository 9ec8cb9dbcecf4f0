/**
 * ForgeLM's front end: the OpenAI-compatible HTTP API on Jetty 12 and Jackson, and the
 * {@code forge} command line (picocli).
 *
 * <p>{@code forge.http.server} is the API: one router ({@code ForgeServer}) with the browser,
 * key and draining checks in front of every route, one validator of request parameters, and one
 * translator per route between its wire format and the runtime's generation requests and events.
 * {@code forge.http.cli} is the command line ({@code serve}, {@code plugins}, {@code model}),
 * which builds the runtime and the catalog and starts the server.
 *
 * <p>The web UI at {@code /} (chat playground, template preview, dashboard) is built from
 * {@code src/main/webui} (Vite and Preact, packages locked in its {@code package-lock.json}) by
 * {@code build.sh} in the {@code generate-resources} phase ({@code npm ci}, then the project's own
 * Vite: no global tool) into {@code META-INF/forge/webui/} of this jar, and served by
 * {@code WebUi}: without a key, the hashed bundle cached for good, {@code index.html} revalidated.
 * The module calls no native code
 * (the engines do, on their own threads) and uses no service itself: the runtime discovers the
 * backends and templates.
 */
module forge.http {
    // forge.http.server's API speaks the runtime's types (the catalog, the sampler stages, engine errors).
    requires transitive forge.runtime;
    // forge model synth and the demo model write synthetic GGUF files.
    requires forge.lib.gguf;
    // response_format, grammar and tools: JSON Schema to GBNF, and the GBNF checker.
    requires forge.lib.grammar;
    // tools on any model: the generic tool-call format wrapped around a template without one.
    requires forge.template.toolkit;
    requires org.eclipse.jetty.server;
    // image URLs, where --allow-image-urls allows them: a client whose address resolver checks and pins each hop.
    requires org.eclipse.jetty.client;
    // ... and Jackson's tree types (an error's JSON body).
    requires transitive com.fasterxml.jackson.databind;
    requires info.picocli;
    requires org.slf4j;
    // The server's logging is set up in code (ForgeLogging), not from an XML file.
    requires ch.qos.logback.classic;
    requires ch.qos.logback.core;
    // GET /metrics: the Prometheus Java client (registry, metric types) and its text format.
    requires io.prometheus.metrics.core;
    requires io.prometheus.metrics.model;
    requires io.prometheus.writer.text;
    // forge pull and POST /models/pull fetch from a Hugging Face hub; forge models load|unload call a running server.
    requires java.net.http;
    // forge serve's graceful shutdown: sun.misc.Signal, the only way to see a second SIGTERM.
    requires jdk.unsupported;

    provides ch.qos.logback.classic.spi.Configurator with
            forge.http.cli.ForgeLogging;

    exports forge.http.server;
    exports forge.http.hub;
    // picocli fills the command classes' annotated fields by reflection.
    opens forge.http.cli to
            info.picocli;
}
