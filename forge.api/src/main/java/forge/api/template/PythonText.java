package forge.api.template;

/**
 * Python's string methods as official chat templates use them: Jinja's {@code |trim} is
 * {@code str.strip()}, whose idea of whitespace is wider than Java's {@link String#strip()}
 * (it includes U+001C..U+001F and U+0085 but, unlike Java, also U+00A0 and U+202F).
 *
 * {@snippet :
 * PythonText.strip("\u00a0 hi \n");      // "hi"
 * PythonText.strip("\n\nhi\n", "\n");     // "hi"
 * }
 */
public final class PythonText {

    private PythonText() {
    }

    /** Python's {@code str.isspace()} for one character. */
    public static boolean isSpace(char c) {
        return switch (c) {
            case '\t', '\n', 0x0b, '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, ' ', 0x85, 0xa0, 0x1680,
                 0x2028, 0x2029, 0x202f, 0x205f, 0x3000 -> true;
            default -> c >= 0x2000 && c <= 0x200a;
        };
    }

    /** {@code s.strip()}. */
    public static String strip(String s) {
        return rstrip(lstrip(s));
    }

    /** {@code s.lstrip()}. */
    public static String lstrip(String s) {
        int i = 0;
        while (i < s.length() && isSpace(s.charAt(i))) {
            i++;
        }
        return s.substring(i);
    }

    /** {@code s.rstrip()}. */
    public static String rstrip(String s) {
        int j = s.length();
        while (j > 0 && isSpace(s.charAt(j - 1))) {
            j--;
        }
        return s.substring(0, j);
    }

    /** {@code s.strip(chars)}. */
    public static String strip(String s, String chars) {
        return rstrip(lstrip(s, chars), chars);
    }

    /** {@code s.lstrip(chars)}. */
    public static String lstrip(String s, String chars) {
        int i = 0;
        while (i < s.length() && chars.indexOf(s.charAt(i)) >= 0) {
            i++;
        }
        return s.substring(i);
    }

    /** {@code s.rstrip(chars)}. */
    public static String rstrip(String s, String chars) {
        int j = s.length();
        while (j > 0 && chars.indexOf(s.charAt(j - 1)) >= 0) {
            j--;
        }
        return s.substring(0, j);
    }
}
