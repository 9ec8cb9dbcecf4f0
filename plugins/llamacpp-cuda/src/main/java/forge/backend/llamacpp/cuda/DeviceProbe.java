package forge.backend.llamacpp.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import forge.backend.llamacpp.natives.ChildOutput;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Asks the NVIDIA driver for its devices in a child JVM, so that the server's process never runs
 * {@code cuInit} unless it chooses the CUDA backend ({@code cuInit} starts driver threads and maps
 * memory for good). The child is this class's {@link #main}: it opens {@code libcuda.so.1} by path,
 * prints one line per fact, and exits; the parent reads the lines back ({@link #parse}).
 *
 * <p>Lines: {@code driver <version>}, {@code device <index>\t<name>\t<total bytes>\t<free bytes>},
 * {@code error <call> <code> <name>}.
 */
@SuppressWarnings("restricted") // the child's one purpose is to call the driver
public final class DeviceProbe {

    /** One GPU as the driver reports it. */
    record Gpu(int index, String name, long totalBytes, long freeBytes) {}

    /** What the child found: the driver version, the devices, or why it could not ask. */
    record Result(int driverVersion, List<Gpu> gpus, String error) {
        boolean ok() {
            return error.isEmpty() && !gpus.isEmpty();
        }
    }

    private DeviceProbe() {}

    /** Runs the child: {@code java -cp <this module> DeviceProbe <libcuda path>}, within {@code timeoutSeconds}. */
    static Result run(Path libcuda, Path codeLocation, long timeoutSeconds) {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> cmd = List.of(
                java.toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-Xshare:auto",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                codeLocation.toString(),
                DeviceProbe.class.getName(),
                libcuda.toString());
        try {
            ChildOutput child = ChildOutput.run(cmd, 1 << 16, timeoutSeconds);
            if (!child.finished()) {
                return new Result(0, List.of(), "the device probe did not finish in " + timeoutSeconds + " s");
            }
            return parse(child.output());
        } catch (IOException e) {
            return new Result(
                    0, List.of(), "cannot run the device probe (" + String.join(" ", cmd) + "): " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(0, List.of(), "interrupted while probing the devices");
        }
    }

    /**
     * Reads the child's lines back. Other lines (a JVM warning on stderr) are ignored unless the
     * child said nothing of its own: then they are the error, verbatim (a crash, a missing class).
     */
    static Result parse(String output) {
        int driver = 0;
        List<Gpu> gpus = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        List<String> other = new ArrayList<>();
        boolean spoke = false;
        for (String line : output.split("\n")) {
            String l = line.strip();
            try {
                if (l.startsWith("driver ")) {
                    driver = Integer.parseInt(l.substring(7).strip());
                    spoke = true;
                } else if (l.startsWith("device ")) {
                    String[] f = l.substring(7).split("\t");
                    gpus.add(new Gpu(Integer.parseInt(f[0]), f[1], Long.parseLong(f[2]), Long.parseLong(f[3])));
                    spoke = true;
                } else if (l.startsWith("error ")) {
                    errors.add(l.substring(6));
                    spoke = true;
                } else if (!l.isEmpty()) {
                    other.add(l);
                }
            } catch (RuntimeException e) {
                errors.add("unreadable line from the device probe: " + l);
            }
        }
        if (!spoke && !other.isEmpty()) {
            String text = String.join(" / ", other);
            errors.add("the device probe failed: " + (text.length() > 400 ? text.substring(0, 400) + "..." : text));
        }
        if (errors.isEmpty() && gpus.isEmpty()) {
            errors.add("the driver reports no CUDA device");
        }
        return new Result(driver, gpus, String.join("; ", errors));
    }

    /** The child: {@code args[0]} is the path of {@code libcuda.so.1}. */
    public static void main(String[] args) {
        Linker linker = Linker.nativeLinker();
        try (Arena arena = Arena.ofConfined()) {
            SymbolLookup cuda;
            try {
                cuda = SymbolLookup.libraryLookup(Path.of(args[0]), arena);
            } catch (RuntimeException e) {
                System.out.println("error dlopen 0 cannot load " + args[0] + ": " + e.getMessage());
                return;
            }
            MethodHandle cuInit = handle(linker, cuda, "cuInit", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
            MethodHandle driverVersion =
                    handle(linker, cuda, "cuDriverGetVersion", FunctionDescriptor.of(JAVA_INT, ADDRESS));
            MethodHandle count = handle(linker, cuda, "cuDeviceGetCount", FunctionDescriptor.of(JAVA_INT, ADDRESS));
            MethodHandle get = handle(linker, cuda, "cuDeviceGet", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
            MethodHandle name = handle(
                    linker, cuda, "cuDeviceGetName", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
            MethodHandle retain = handle(
                    linker, cuda, "cuDevicePrimaryCtxRetain", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
            MethodHandle setCurrent = handle(linker, cuda, "cuCtxSetCurrent", FunctionDescriptor.of(JAVA_INT, ADDRESS));
            MethodHandle memInfo =
                    handle(linker, cuda, "cuMemGetInfo_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
            MethodHandle errorName =
                    handle(linker, cuda, "cuGetErrorName", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
            int rc = (int) cuInit.invokeExact(0);
            if (rc != 0) {
                System.out.println("error cuInit " + rc + " " + errorName(errorName, arena, rc));
                return;
            }
            MemorySegment i32 = arena.allocate(JAVA_INT);
            if ((int) driverVersion.invokeExact(i32) == 0) {
                System.out.println("driver " + i32.get(JAVA_INT, 0));
            }
            rc = (int) count.invokeExact(i32);
            if (rc != 0) {
                System.out.println("error cuDeviceGetCount " + rc + " " + errorName(errorName, arena, rc));
                return;
            }
            int n = i32.get(JAVA_INT, 0);
            MemorySegment buf = arena.allocate(256);
            MemorySegment ctx = arena.allocate(ADDRESS);
            MemorySegment free = arena.allocate(JAVA_LONG);
            MemorySegment total = arena.allocate(JAVA_LONG);
            for (int i = 0; i < n; i++) {
                rc = (int) get.invokeExact(i32, i);
                int dev = i32.get(JAVA_INT, 0);
                if (rc == 0) {
                    rc = (int) name.invokeExact(buf, 255, dev);
                }
                if (rc == 0) {
                    rc = (int) retain.invokeExact(ctx, dev);
                }
                if (rc == 0) {
                    rc = (int) setCurrent.invokeExact(ctx.get(ADDRESS, 0));
                }
                if (rc == 0) {
                    rc = (int) memInfo.invokeExact(free, total);
                }
                if (rc != 0) {
                    System.out.println("error device" + i + " " + rc + " " + errorName(errorName, arena, rc));
                    continue;
                }
                System.out.println("device " + i + "\t" + buf.getString(0).replace('\t', ' ') + "\t"
                        + total.get(JAVA_LONG, 0) + "\t" + free.get(JAVA_LONG, 0));
            }
        } catch (Throwable t) {
            System.out.println("error probe 0 " + t);
        }
        System.out.flush();
    }

    private static MethodHandle handle(Linker linker, SymbolLookup lib, String symbol, FunctionDescriptor d) {
        return linker.downcallHandle(
                lib.find(symbol).orElseThrow(() -> new IllegalStateException("libcuda has no " + symbol)), d);
    }

    private static String errorName(MethodHandle errorName, Arena arena, int rc) throws Throwable {
        MemorySegment out = arena.allocate(ADDRESS);
        if ((int) errorName.invokeExact(rc, out) != 0 || out.get(ADDRESS, 0).equals(MemorySegment.NULL)) {
            return "CUDA error";
        }
        return out.get(ADDRESS, 0).reinterpret(256).getString(0);
    }
}
