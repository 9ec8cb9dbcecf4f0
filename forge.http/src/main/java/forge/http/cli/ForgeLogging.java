package forge.http.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import ch.qos.logback.core.status.NopStatusListener;

/**
 * The server's logging, set up in code: one line per event on standard error
 * ({@code 14:09:54.586 INFO  PluginRegistry     message}), the root at {@code -Dforge.log}
 * (default INFO), llama.cpp's own log at {@code -Dforge.llama.log} (default WARN), Jetty at WARN.
 *
 * <p>Logback finds this configurator through {@code ServiceLoader} before it looks for a
 * {@code logback.xml}: parsing an XML configuration (Joran: a SAX parser, reflection over
 * every element) took about 80 ms of every start before the JIT, a tenth of the time to the
 * first {@code /health}. {@code -Dlogback.configurationFile=FILE} still wins: then this steps
 * aside and logback reads that file as usual.
 */
public final class ForgeLogging extends ContextAwareBase implements Configurator {

    /** The pattern of every line. */
    static final String PATTERN = "%d{HH:mm:ss.SSS} %-5level %-18logger{0} %msg%n";

    public ForgeLogging() {}

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (System.getProperty("logback.configurationFile") != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        context.getStatusManager().add(new NopStatusListener());
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(PATTERN);
        encoder.start();
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(context);
        stderr.setName("STDERR");
        stderr.setTarget("System.err");
        stderr.setEncoder(encoder);
        stderr.start();
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(level("forge.log", Level.INFO));
        root.addAppender(stderr);
        context.getLogger("org.eclipse.jetty").setLevel(Level.WARN);
        context.getLogger("llama.cpp").setLevel(level("forge.llama.log", Level.WARN));
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /** The level a system property names (TRACE, DEBUG, INFO, WARN, ERROR, OFF), or {@code otherwise}. */
    static Level level(String property, Level otherwise) {
        String value = System.getProperty(property);
        return value == null || value.isBlank() ? otherwise : Level.toLevel(value.strip(), otherwise);
    }
}
