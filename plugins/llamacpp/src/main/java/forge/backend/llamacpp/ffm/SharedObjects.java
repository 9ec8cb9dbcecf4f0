package forge.backend.llamacpp.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds a symbol that a backend library exports but does not hand out through
 * {@code ggml_backend_reg_get_proc_address}: the library is the one that holds a function the
 * backend did hand out ({@code dladdr} of glibc names it), looked up again by path (the dynamic
 * loader returns the copy already loaded).
 */
@SuppressWarnings("restricted") // native access is this module's purpose; it is granted with --enable-native-access
public final class SharedObjects {
    private SharedObjects() {}

    /** {@code Dl_info} of {@code <dlfcn.h>}. */
    private static final StructLayout DL_INFO = MemoryLayout.structLayout(
            ADDRESS.withName("dli_fname"), ADDRESS.withName("dli_fbase"),
            ADDRESS.withName("dli_sname"), ADDRESS.withName("dli_saddr"));

    // int dladdr(const void * addr, Dl_info * info); // libc (glibc 2.34+; libdl before)
    private static final MethodHandle DLADDR = Linker.nativeLinker()
            .defaultLookup()
            .find("dladdr")
            .map(f -> Linker.nativeLinker().downcallHandle(f, FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)))
            .orElse(null);

    /** {@code name} in the shared object that holds {@code function}; empty when it cannot be found. */
    public static Optional<MemorySegment> symbolBeside(MemorySegment function, String name) {
        if (DLADDR == null || function.equals(MemorySegment.NULL)) {
            return Optional.empty();
        }
        String file;
        try (Arena call = Arena.ofConfined()) {
            MemorySegment info = call.allocate(DL_INFO);
            int found = (int) DLADDR.invokeExact(function, info);
            MemorySegment fname = info.get(ADDRESS, 0);
            if (found == 0 || fname.equals(MemorySegment.NULL)) {
                return Optional.empty();
            }
            file = fname.reinterpret(Long.MAX_VALUE).getString(0);
        } catch (Throwable t) {
            return Optional.empty();
        }
        try {
            return SymbolLookup.libraryLookup(Path.of(file), Arena.global()).find(name);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
