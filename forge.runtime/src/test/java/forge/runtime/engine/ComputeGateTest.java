package forge.runtime.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.backend.InferenceContext;
import java.lang.reflect.Proxy;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Contexts decode in turn when their threads exceed the cores, side by side when they fit. */
class ComputeGateTest {

    /** A context whose decode runs {@code body} and records how many decodes overlap; counts idle(). */
    private static InferenceContext context(
            AtomicInteger running, AtomicInteger maxRunning, AtomicInteger idles, Callable body) {
        return (InferenceContext) Proxy.newProxyInstance(
                InferenceContext.class.getClassLoader(),
                new Class<?>[] {InferenceContext.class},
                (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "decode" -> {
                            maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                            try {
                                body.call();
                            } finally {
                                running.decrementAndGet();
                            }
                        }
                        case "idle" -> idles.incrementAndGet();
                        default -> throw new UnsupportedOperationException(method.getName());
                    }
                    return null;
                });
    }

    private interface Callable {
        void call() throws Exception;
    }

    private static void twoThreads(Runnable a, Runnable b) throws InterruptedException {
        Thread ta = Thread.ofPlatform().start(a);
        Thread tb = Thread.ofPlatform().start(b);
        ta.join();
        tb.join();
    }

    @Test
    void contextsThatDoNotFitTheCoresNeverOverlapAndTheOneHandingOverGoesIdle() throws Exception {
        ComputeGate gate = new ComputeGate(2);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger maxRunning = new AtomicInteger();
        AtomicInteger idles = new AtomicInteger();
        InferenceContext a = context(running, maxRunning, idles, () -> Thread.sleep(2));
        InferenceContext b = context(running, maxRunning, idles, () -> Thread.sleep(2));
        try (var _ = gate.enter(2);
                var _ = gate.enter(2)) {
            twoThreads(
                    () -> {
                        for (int i = 0; i < 30; i++) {
                            gate.decode(a);
                        }
                    },
                    () -> {
                        for (int i = 0; i < 30; i++) {
                            gate.decode(b);
                        }
                    });
        }
        assertEquals(1, maxRunning.get(), "two decodes ran at once");
        assertTrue(idles.get() > 0, "a context that handed its turn to a waiting one was told it is idle");
    }

    @Test
    void contextsThatFitTheCoresDecodeSideBySide() throws Exception {
        ComputeGate gate = new ComputeGate(2);
        // Each decode waits for the other to be inside its decode too: only side by side can both finish.
        CyclicBarrier both = new CyclicBarrier(2);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger maxRunning = new AtomicInteger();
        AtomicInteger idles = new AtomicInteger();
        InferenceContext a = context(running, maxRunning, idles, () -> both.await(5, TimeUnit.SECONDS));
        InferenceContext b = context(running, maxRunning, idles, () -> both.await(5, TimeUnit.SECONDS));
        try (var _ = gate.enter(1);
                var _ = gate.enter(1)) {
            twoThreads(() -> gate.decode(a), () -> gate.decode(b));
        }
        assertEquals(2, maxRunning.get());
        assertEquals(0, idles.get());
        assertTrue(!both.isBroken(), "both decodes met inside");
    }
}
