/**
 * ForgeLM's front end: the OpenAI-compatible HTTP API on Jetty 12 and Jackson, and the
 * {@code forge} command line (picocli).
 */
module forge.http {
    requires forge.runtime;
    requires forge.runtime.grammar;
    requires org.eclipse.jetty.server;
    requires com.fasterxml.jackson.databind;
    requires info.picocli;
    requires org.slf4j;
    // GET /metrics: the Prometheus Java client (registry, metric types) and its text format.
    requires io.prometheus.metrics.core;
    requires io.prometheus.metrics.model;
    requires io.prometheus.writer.text;

    exports forge.http.server;
    // picocli fills the command classes' annotated fields by reflection.
    opens forge.http.cli to info.picocli;
}
