package forge.backend.llamacpp.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * The wait policy of the OpenMP runtime (libgomp) that the OpenMP build of a CPU variant uses.
 *
 * <p>libgomp's default policy spins 300 000 times before a waiting thread sleeps; between the
 * graph operations of one decode that is as bad as ggml's own pool when one compute thread is
 * preempted by the JVM's threads or another process. Sleeping at once ({@code
 * OMP_WAIT_POLICY=PASSIVE}) is the other end: measured side by side with llama-server on a quiet
 * 2-core machine (bench/RESULTS.md, "CPU threads"), it decodes a 0.5B model about a quarter slower,
 * since every operation's wait then costs a futex round trip. A bounded spin ({@link #SPINS}) decodes
 * as fast as the default there and keeps a request's latency on a busy machine below llama-server's.
 * libgomp reads its environment once, in its constructor, so the variable is put into the C
 * environment ({@code setenv}: {@link System#getenv()} is a copy taken at JVM start, and setting it
 * there would not reach libgomp) before the variant is opened. A policy the user chose ({@code
 * OMP_WAIT_POLICY} or {@code GOMP_SPINCOUNT} in the environment) is left alone: {@code
 * OMP_WAIT_POLICY=passive} suits a machine shared with other busy processes.
 */
@SuppressWarnings("restricted") // native access is this module's purpose; it is granted with --enable-native-access
final class OpenMp {

    static final String WAIT_POLICY = "OMP_WAIT_POLICY";
    static final String SPIN_COUNT = "GOMP_SPINCOUNT";

    /** The spins before a waiting thread sleeps: a tenth of libgomp's default. */
    static final String SPINS = "30000";

    private OpenMp() {}

    /**
     * Sets {@code GOMP_SPINCOUNT} to {@link #SPINS} in the process's C environment unless the user
     * set a wait policy or spin count; a no-op once libgomp is loaded (call it before).
     */
    static synchronized void boundSpinning() {
        if (getenv(WAIT_POLICY).isPresent() || getenv(SPIN_COUNT).isPresent()) {
            return;
        }
        setenv(SPIN_COUNT, SPINS);
    }

    /** {@code setenv(name, value, 1)} in the process's C environment. */
    static void setenv(String name, String value) {
        try (Arena arena = Arena.ofConfined()) {
            int rc = (int) Libc.SETENV.invokeExact(arena.allocateFrom(name), arena.allocateFrom(value), 1);
            if (rc != 0) {
                throw new IllegalStateException("setenv(" + name + ") failed");
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code getenv(name)} of the process's C environment (not the JVM's copy of it). */
    static Optional<String> getenv(String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = (MemorySegment) Libc.GETENV.invokeExact(arena.allocateFrom(name));
            return value.equals(MemorySegment.NULL)
                    ? Optional.empty()
                    : Optional.of(value.reinterpret(Long.MAX_VALUE).getString(0));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** libc's {@code setenv} and {@code getenv}, bound on first use. */
    private static final class Libc {
        private static final Linker LINKER = Linker.nativeLinker();
        static final MethodHandle SETENV = LINKER.downcallHandle(
                LINKER.defaultLookup().find("setenv").orElseThrow(),
                FunctionDescriptor.of(
                        ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        static final MethodHandle GETENV = LINKER.downcallHandle(
                LINKER.defaultLookup().find("getenv").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS));
    }
}
