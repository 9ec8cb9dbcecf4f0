import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.lang.classfile.ClassFile.StackMapsOption;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;

/**
 * Rewrites the jars of a module path whose classes are older than Java 6 (class file version
 * 50) as version 52 classes with stack maps, into another folder; prints what it rewrote.
 *
 * <p>Why: the JVM's AOT cache (JEP 483) holds no class older than version 50, so such classes are
 * parsed and checked by the old type-inferring verifier at every start. picocli ships as version
 * 49 (Java 5), so none of its ~230 classes came from the image's cache; rewritten, they do. The
 * code itself is unchanged: each method body is re-emitted instruction by instruction (which
 * also recomputes branch offsets), stack maps are computed, and every rewritten class is checked
 * with the JDK's verifier before it is written.
 *
 * <p>Usage: {@code java ClassFileUpgrade.java OUT_DIR JAR_OR_DIR...}; run by build-image.sh.
 */
public final class ClassFileUpgrade {

    private static final int OLDEST_CACHED = 50;

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args[0]);
        Files.createDirectories(out);
        List<Path> jars = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            Path p = Path.of(args[i]);
            if (Files.isDirectory(p)) {
                try (var s = Files.list(p)) {
                    s.filter(f -> f.toString().endsWith(".jar")).sorted().forEach(jars::add);
                }
            } else if (p.toString().endsWith(".jar")) {
                jars.add(p);
            }
        }
        for (Path jar : jars) {
            int n = upgrade(jar, out.resolve(jar.getFileName()));
            if (n > 0) {
                System.out.println("ClassFileUpgrade: " + jar.getFileName() + ": " + n + " classes rewritten as version 52");
            }
        }
    }

    /** Writes the upgraded copy of {@code jar} to {@code target} when it has old classes; returns how many. */
    static int upgrade(Path jar, Path target) throws IOException {
        try (JarFile in = new JarFile(jar.toFile(), false)) {
            boolean old = false;
            for (JarEntry e : Collections.list(in.entries())) {
                if (isClass(e) && major(in.getInputStream(e).readNBytes(8)) < OLDEST_CACHED) {
                    old = true;
                    break;
                }
            }
            if (!old) {
                return 0;
            }
            // Stack maps need the class hierarchy: the JDK's own, then the jar's classes.
            try (URLClassLoader jarClasses = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null)) {
                ClassFile cf = ClassFile.of(StackMapsOption.GENERATE_STACK_MAPS,
                        ClassFile.ClassHierarchyResolverOption.of(ClassHierarchyResolver.defaultResolver()
                                .orElse(ClassHierarchyResolver.ofResourceParsing(jarClasses))));
                int n = 0;
                Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
                try (JarOutputStream zout = new JarOutputStream(Files.newOutputStream(tmp))) {
                    for (JarEntry e : Collections.list(in.entries())) {
                        byte[] bytes = in.getInputStream(e).readAllBytes();
                        if (isClass(e) && major(bytes) < OLDEST_CACHED) {
                            ClassModel model = cf.parse(bytes);
                            bytes = cf.transformClass(model, ClassTransform.transformingMethodBodies(CodeTransform.ACCEPT_ALL)
                                    .andThen(ClassTransform.endHandler(b -> b.withVersion(52, 0))));
                            var errors = cf.verify(bytes);
                            if (!errors.isEmpty()) {
                                throw new IllegalStateException(jar.getFileName() + "!" + e.getName() + " does not verify once rewritten: "
                                        + errors.getFirst().getMessage());
                            }
                            n++;
                        }
                        JarEntry copy = new JarEntry(e.getName());
                        copy.setTime(e.getTime());
                        zout.putNextEntry(copy);
                        zout.write(bytes);
                        zout.closeEntry();
                    }
                }
                Files.move(tmp, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                return n;
            }
        }
    }

    private static boolean isClass(JarEntry e) {
        return e.getName().endsWith(".class") && !e.getName().endsWith("module-info.class");
    }

    private static int major(byte[] header) {
        return ((header[6] & 0xff) << 8) | (header[7] & 0xff);
    }
}
