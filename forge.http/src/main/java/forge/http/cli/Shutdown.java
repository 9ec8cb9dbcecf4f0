package forge.http.cli;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Graceful shutdown on SIGTERM and SIGINT: stop taking work ({@code /health} and new requests
 * answer 503 while draining, as load balancers expect), let running requests finish within the
 * grace, then cancel what is left (each stream gets an error event), unload, and exit 0. A
 * second signal while draining exits at once. The JVM's own shutdown hooks cannot do this:
 * they run once, and a second signal during them is ignored.
 */
final class Shutdown {
    private static final Logger LOG = LoggerFactory.getLogger(Shutdown.class);
    private final ServeCommand.Running running;
    private final Duration grace;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();

    Shutdown(ServeCommand.Running running, Duration grace) {
        this.running = running;
        this.grace = grace;
    }

    void install() {
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                Signals.handle(name, this::onSignal);
            } catch (IllegalArgumentException e) {
                LOG.debug("cannot handle SIG{}: {}", name, e.getMessage());
            }
        }
    }

    private void onSignal(String name) {
        if (!started.compareAndSet(false, true)) {
            System.err.println("forge: second SIG" + name + ": exiting now");
            Runtime.getRuntime().halt(1);
        }
        Thread.ofPlatform().name("forge-shutdown").start(this::run);
    }

    private void run() {
        int code = 0;
        try {
            LOG.info("shutting down: waiting up to {} ms for running requests", grace.toMillis());
            int left = running.server().drain(grace);
            if (left > 0) {
                LOG.warn("cancelling {} request(s) still running after the grace period", left);
            }
            closeOnce(); // engines first: their requests end with an error event while Jetty still writes
            LOG.info("stopped");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            code = 1;
        } catch (RuntimeException e) {
            LOG.error("error while shutting down", e);
            code = 1;
        }
        System.exit(code);
    }

    /** Closes what runs, once: after a signal's drain, or from the JVM's shutdown hook on any other exit. */
    void closeOnce() {
        if (closed.compareAndSet(false, true)) {
            running.close();
        }
    }
}
