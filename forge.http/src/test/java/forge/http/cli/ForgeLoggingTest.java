package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.core.ConsoleAppender;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Logging is set up by {@link ForgeLogging}, found by logback through the module's {@code provides}. */
class ForgeLoggingTest {

    @Test
    void theServersLogbackIsConfiguredInCode() {
        LoggerContext context = assertInstanceOf(LoggerContext.class, LoggerFactory.getILoggerFactory());
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        var stderr = assertInstanceOf(ConsoleAppender.class, root.getAppender("STDERR"), "ForgeLogging's appender");
        assertEquals("System.err", stderr.getTarget());
        assertEquals(ForgeLogging.PATTERN, ((PatternLayoutEncoder) stderr.getEncoder()).getPattern());
        assertEquals(Level.WARN, context.getLogger("org.eclipse.jetty").getLevel());
        assertEquals(
                ForgeLogging.level("forge.llama.log", Level.WARN),
                context.getLogger("llama.cpp").getLevel());
    }

    @Test
    void theLevelsComeFromTheSystemProperties() {
        String log = System.getProperty("forge.log");
        String llama = System.getProperty("forge.llama.log");
        try {
            System.setProperty("forge.log", "debug");
            System.setProperty("forge.llama.log", "INFO");
            LoggerContext fresh = new LoggerContext();
            ForgeLogging configurator = new ForgeLogging();
            configurator.setContext(fresh);
            assertEquals(
                    ch.qos.logback.classic.spi.Configurator.ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY,
                    configurator.configure(fresh));
            assertEquals(Level.DEBUG, fresh.getLogger(Logger.ROOT_LOGGER_NAME).getLevel());
            assertEquals(Level.INFO, fresh.getLogger("llama.cpp").getLevel());
            System.setProperty("forge.log", "nonsense");
            assertEquals(Level.INFO, ForgeLogging.level("forge.log", Level.INFO), "an unknown level keeps the default");
            fresh.stop();
        } finally {
            restore("forge.log", log);
            restore("forge.llama.log", llama);
        }
    }

    private static void restore(String property, String value) {
        if (value == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, value);
        }
    }
}
