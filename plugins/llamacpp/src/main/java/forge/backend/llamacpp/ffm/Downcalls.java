package forge.backend.llamacpp.ffm;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * What the binding tables ({@link Llama}, {@link Mtmd}) do alike: each C function's holder class
 * is named after it, so a library is checked against a table by looking up the holders' names;
 * a holder binds its handle by name on first call; and a wrapper rethrows what
 * {@code invokeExact} declares.
 */
final class Downcalls {
    private Downcalls() {}

    /**
     * The functions of {@code groups} (classes whose nested classes are holders named after their
     * C functions) that {@code lookup} does not find, in declaration order. Looking up makes no
     * handle, so a library can be checked whole at load.
     */
    static List<String> missing(SymbolLookup lookup, List<Class<?>> groups) {
        List<String> missing = new ArrayList<>();
        for (Class<?> group : groups) {
            for (Class<?> function : group.getDeclaredClasses()) {
                if (lookup.find(function.getSimpleName()).isEmpty()) {
                    missing.add(function.getSimpleName());
                }
            }
        }
        return missing;
    }

    /**
     * A downcall handle of the function {@code name} of {@code lookup}.
     *
     * @throws UnsatisfiedLinkError "unresolved symbol: NAME" when the library lacks it
     */
    @SuppressWarnings("restricted") // native access is this module's purpose; it is granted with --enable-native-access
    static MethodHandle bind(SymbolLookup lookup, String name, FunctionDescriptor descriptor) {
        MemorySegment symbol =
                lookup.find(name).orElseThrow(() -> new UnsatisfiedLinkError("unresolved symbol: " + name));
        return Linker.nativeLinker().downcallHandle(symbol, descriptor);
    }

    /**
     * Rethrows {@code t}, which a downcall's {@code invokeExact} declares as a {@link Throwable}:
     * unchecked ones as they are; a checked one cannot come of a native call and is a bug.
     */
    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new AssertionError("unexpected checked exception from a downcall", t);
    }
}
