package forge.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's layout table matches the tree: every module the root pom builds has a row naming
 * its folder and its JPMS module, and every folder a row names is a module the pom builds.
 */
class LayoutTest {

    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();

    private static List<String> pomModules() throws Exception {
        List<String> modules = new ArrayList<>();
        Matcher m = Pattern.compile("<module>([^<]+)</module>").matcher(Files.readString(ROOT.resolve("pom.xml")));
        while (m.find()) {
            modules.add(m.group(1));
        }
        return modules;
    }

    private static String layoutTable() throws Exception {
        String readme = Files.readString(ROOT.resolve("README.md"));
        int start = readme.indexOf("## Layout");
        assertTrue(start >= 0, "the README has a Layout section");
        int end = readme.indexOf("\n## ", start + 1);
        return readme.substring(start, end < 0 ? readme.length() : end);
    }

    @Test
    void everyModuleHasARowWithItsFolderAndModuleName() throws Exception {
        String table = layoutTable();
        for (String module : pomModules()) {
            String folder = module.substring(module.lastIndexOf('/') + 1);
            assertTrue(
                    table.contains("`" + module + "/`") || table.contains("`" + folder + "/`"),
                    "the layout table has no row for " + module);
            Path info = ROOT.resolve(module).resolve("src/main/java/module-info.java");
            if (Files.exists(info)) {
                Matcher name = Pattern.compile("(?m)^module ([\\w.]+)").matcher(Files.readString(info));
                assertTrue(name.find(), info.toString());
                String jpms = name.group(1);
                assertTrue(
                        table.contains("`" + jpms + "`")
                                || table.contains("`" + jpms.substring(0, jpms.lastIndexOf('.') + 1)),
                        "the layout table does not name module " + jpms + " (" + module + ")");
            }
        }
    }

    @Test
    void everyFolderTheTableNamesIsAModule() throws Exception {
        List<String> modules = pomModules();
        Matcher row = Pattern.compile("(?m)^\\| `([\\w./-]+)/`").matcher(layoutTable());
        int rows = 0;
        while (row.find()) {
            rows++;
            String folder = row.group(1);
            assertTrue(
                    modules.contains(folder) || folder.equals("dist") || folder.equals("bench"),
                    "the layout table names " + folder + "/, which the root pom does not build");
        }
        assertEquals(true, rows >= 10, "rows found: " + rows);
    }
}
