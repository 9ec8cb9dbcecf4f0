/**
 * ForgeLM's front end: the OpenAI-compatible HTTP API on Jetty 12 and Jackson, and the
 * {@code forge} command line (picocli).
 */
module forge.http {
    requires forge.runtime;
    // forge model synth and the demo model write synthetic GGUF files.
    requires forge.runtime.gguf;
    // response_format, grammar and tools: JSON Schema to GBNF, and the GBNF checker.
    requires forge.runtime.grammar;
    requires org.eclipse.jetty.server;
    requires com.fasterxml.jackson.databind;
    requires info.picocli;
    requires org.slf4j;
    // GET /metrics: the Prometheus Java client (registry, metric types) and its text format.
    requires io.prometheus.metrics.core;
    requires io.prometheus.metrics.model;
    requires io.prometheus.writer.text;
    // forge serve's graceful shutdown: sun.misc.Signal, the only way to see a second SIGTERM.
    requires jdk.unsupported;

    exports forge.http.server;
    // picocli fills the command classes' annotated fields by reflection.
    opens forge.http.cli to info.picocli;
}
