package forge.http.cli;

import java.util.List;

/**
 * Codex's {@code apply_patch} format read line by line, as its documentation describes it: written
 * apart from the Lark grammar and its translation, so a test can tell that what a grammar forced is
 * a patch. {@code *** Begin Patch}, one or more file operations, {@code *** End Patch} (a final
 * newline optional): {@code *** Add File: P} and one or more {@code +} lines;
 * {@code *** Delete File: P}; {@code *** Update File: P}, maybe {@code *** Move to: P}, then maybe
 * change lines ({@code @@}, {@code @@ header}, or a line starting with a space, {@code +} or
 * {@code -}) closed by an optional {@code *** End of File}. Paths and headers are not empty.
 */
final class PatchFormat {

    private PatchFormat() {}

    static boolean valid(String patch) {
        List<String> lines = List.of(patch.split("\n", -1));
        if (patch.endsWith("\n")) {
            lines = lines.subList(0, lines.size() - 1);
        }
        int end = lines.size() - 1;
        if (lines.size() < 3
                || !lines.getFirst().equals("*** Begin Patch")
                || !lines.get(end).equals("*** End Patch")) {
            return false;
        }
        int i = 1;
        while (i < end) {
            String line = lines.get(i++);
            if (named(line, "*** Add File: ")) {
                int added = 0;
                while (i < end && lines.get(i).startsWith("+")) {
                    i++;
                    added++;
                }
                if (added == 0) {
                    return false;
                }
            } else if (named(line, "*** Update File: ")) {
                if (i < end && named(lines.get(i), "*** Move to: ")) {
                    i++;
                }
                int changes = 0;
                while (i < end && change(lines.get(i))) {
                    i++;
                    changes++;
                }
                if (changes > 0 && i < end && lines.get(i).equals("*** End of File")) {
                    i++;
                }
            } else if (!named(line, "*** Delete File: ")) {
                return false;
            }
        }
        return true;
    }

    private static boolean named(String line, String prefix) {
        return line.startsWith(prefix) && line.length() > prefix.length();
    }

    private static boolean change(String line) {
        return line.equals("@@")
                || named(line, "@@ ")
                || line.startsWith(" ")
                || line.startsWith("+")
                || line.startsWith("-");
    }
}
