package forge.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * STYLE.md rule 12: a type is imported and named simply; a fully qualified name in code only where
 * two types share a simple name. Counts such names in every main source file of the tree (comments,
 * strings, imports and module descriptors left out) against a budget that only goes down.
 */
class QualifiedNamesTest {

    /**
     * The most inline qualified names main code may hold: none since they were imported (336 of them).
     * Raise it only for two types of one simple name in one file, with the file named here.
     */
    static final int BUDGET = 0;

    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();
    private static final Pattern QUALIFIED = Pattern.compile(
            "(?<![\\w.@])(?:java|javax|jdk|forge|com|org|io|picocli|ch|sun)(?:\\.[a-z_][a-z0-9_]*)+\\.[A-Z][A-Za-z0-9_]*");

    /** Blanks comments and the contents of string and character literals (text blocks too), keeping lines. */
    static String code(String src) {
        StringBuilder out = new StringBuilder(src);
        int n = src.length();
        int i = 0;
        while (i < n) {
            int end;
            if (src.startsWith("//", i)) {
                end = src.indexOf('\n', i);
                end = end < 0 ? n : end;
            } else if (src.startsWith("/*", i)) {
                end = src.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
            } else if (src.startsWith("\"\"\"", i)) {
                end = src.indexOf("\"\"\"", i + 3);
                while (end > 0 && src.charAt(end - 1) == '\\') {
                    end = src.indexOf("\"\"\"", end + 1);
                }
                end = end < 0 ? n : end + 3;
            } else if (src.charAt(i) == '"' || src.charAt(i) == '\'') {
                char quote = src.charAt(i);
                end = i + 1;
                while (end < n && src.charAt(end) != quote) {
                    end += src.charAt(end) == '\\' ? 2 : 1;
                }
                end = Math.min(end + 1, n);
            } else {
                i++;
                continue;
            }
            for (int k = i; k < end; k++) {
                if (out.charAt(k) != '\n') {
                    out.setCharAt(k, ' ');
                }
            }
            i = end;
        }
        return out.toString();
    }

    /** The inline qualified names of one source file, as "file:line name". */
    static List<String> qualifiedNames(Path file, String src) {
        List<String> found = new ArrayList<>();
        String[] lines = code(src).split("\n", -1);
        for (int l = 0; l < lines.length; l++) {
            String line = lines[l].strip();
            if (line.startsWith("import ") || line.startsWith("package ")) {
                continue;
            }
            Matcher m = QUALIFIED.matcher(lines[l]);
            while (m.find()) {
                found.add(ROOT.relativize(file) + ":" + (l + 1) + " " + m.group());
            }
        }
        return found;
    }

    @Test
    void theCounterSeesCodeAndNothingElse() {
        String src = """
                package a.b;
                import java.util.List;
                /** {@link java.util.Map} */
                class X { // java.util.Set
                    java.util.Map<String, String> m = new java.util.HashMap<>();
                    String s = "java.util.Optional";
                    @java.lang.Deprecated List<String> l;
                }
                """;
        assertEquals(
                List.of("X.java:5 java.util.Map", "X.java:5 java.util.HashMap"),
                qualifiedNames(ROOT.resolve("X.java"), src));
    }

    @Test
    void mainCodeImportsWhatItNames() throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            files.filter(p -> p.toString().endsWith(".java")
                            && !p.getFileName().toString().equals("module-info.java"))
                    .filter(p -> p.toString().contains("/src/main/java/"))
                    .filter(p ->
                            !p.toString().contains("/target/") && !p.toString().contains("/node_modules/"))
                    .forEach(p -> {
                        try {
                            found.addAll(qualifiedNames(p, Files.readString(p)));
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
        }
        assertTrue(
                found.size() <= BUDGET,
                found.size() + " inline qualified names (budget " + BUDGET + "; import them, STYLE.md rule 12):\n"
                        + String.join("\n", found));
    }
}
