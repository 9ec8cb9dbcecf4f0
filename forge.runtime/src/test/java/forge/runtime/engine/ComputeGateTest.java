package forge.runtime.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.backend.InferenceContext;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Contexts of different engines decode in turn, and one that hands over its turn lets its threads sleep. */
class ComputeGateTest {

    /** A context whose decode takes 2 ms and records how many decodes overlap; counts idle(). */
    private static InferenceContext context(AtomicInteger running, AtomicInteger maxRunning, AtomicInteger idles) {
        return (InferenceContext) Proxy.newProxyInstance(InferenceContext.class.getClassLoader(), new Class<?>[] {InferenceContext.class},
                (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "decode" -> {
                            maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                            Thread.sleep(2);
                            running.decrementAndGet();
                        }
                        case "idle" -> idles.incrementAndGet();
                        default -> throw new UnsupportedOperationException(method.getName());
                    }
                    return null;
                });
    }

    @Test
    void decodesOfTwoContextsNeverOverlapAndTheOneHandingOverGoesIdle() throws Exception {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger maxRunning = new AtomicInteger();
        AtomicInteger idlesA = new AtomicInteger();
        AtomicInteger idlesB = new AtomicInteger();
        InferenceContext a = context(running, maxRunning, idlesA);
        InferenceContext b = context(running, maxRunning, idlesB);
        Thread ta = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 30; i++) {
                ComputeGate.decode(a);
            }
        });
        Thread tb = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 30; i++) {
                ComputeGate.decode(b);
            }
        });
        ta.join();
        tb.join();
        assertEquals(1, maxRunning.get(), "two decodes ran at once");
        assertTrue(idlesA.get() + idlesB.get() > 0, "a context that handed its turn to a waiting one was told it is idle");
    }

    @Test
    void aLoneContextIsNeverToldItIsIdle() {
        AtomicInteger idles = new AtomicInteger();
        InferenceContext alone = context(new AtomicInteger(), new AtomicInteger(), idles);
        for (int i = 0; i < 5; i++) {
            ComputeGate.decode(alone);
        }
        assertEquals(0, idles.get());
    }
}
