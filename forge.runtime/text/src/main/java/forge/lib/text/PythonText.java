package forge.lib.text;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Python's string methods as official chat templates use them ({@code content.split('</think>')},
 * {@code m.content.strip()}): Jinja's {@code |trim} is {@code str.strip()}, whose idea of
 * whitespace is wider than Java's {@link String#strip()} (it includes U+001C..U+001F and U+0085
 * but, unlike Java, also U+00A0 and U+202F); {@code split()} without a separator splits on runs of
 * that whitespace; {@code str.title()} and {@code splitlines()} have rules of their own.
 *
 * {@snippet :
 * PythonText.strip("\u00a0 hi \n");          // "hi"
 * PythonText.strip("\n\nhi\n", "\n");        // "hi"
 * PythonText.split("a</think>b", "</think>", -1);  // ["a", "b"]
 * PythonText.split("  a  b ", null, -1);      // ["a", "b"]
 * }
 */
public final class PythonText {

    private PythonText() {}

    /** Python's {@code str.isspace()} for one character. */
    public static boolean isSpace(char c) {
        return switch (c) {
            case '\t',
                    '\n',
                    0x0b,
                    '\f',
                    '\r',
                    0x1c,
                    0x1d,
                    0x1e,
                    0x1f,
                    ' ',
                    0x85,
                    0xa0,
                    0x1680,
                    0x2028,
                    0x2029,
                    0x202f,
                    0x205f,
                    0x3000 -> true;
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

    /** {@code s.isspace()}: not empty, every character whitespace. */
    public static boolean isSpace(String s) {
        return !s.isEmpty() && s.chars().allMatch(c -> isSpace((char) c));
    }

    /** {@code s.isdigit()}: not empty, every character a digit. */
    public static boolean isDigit(String s) {
        return !s.isEmpty() && s.chars().allMatch(Character::isDigit);
    }

    /**
     * {@code s.split(sep, maxsplit)}: {@code sep} null splits on runs of whitespace and drops empty
     * parts; {@code maxsplit} below 0 is no limit.
     *
     * @throws IllegalArgumentException for an empty separator (Python's {@code ValueError})
     */
    public static List<String> split(String s, String sep, int maxsplit) {
        List<String> out = new ArrayList<>();
        if (sep == null) { // runs of whitespace, no empty strings
            int i = 0;
            int n = s.length();
            while (true) {
                while (i < n && isSpace(s.charAt(i))) {
                    i++;
                }
                if (i >= n) {
                    return out;
                }
                if (maxsplit >= 0 && out.size() == maxsplit) {
                    out.add(s.substring(i)); // the rest as it is, trailing blanks included
                    return out;
                }
                int j = i;
                while (j < n && !isSpace(s.charAt(j))) {
                    j++;
                }
                out.add(s.substring(i, j));
                i = j;
            }
        }
        if (sep.isEmpty()) {
            throw new IllegalArgumentException("empty separator");
        }
        int from = 0;
        while (maxsplit < 0 || out.size() < maxsplit) {
            int k = s.indexOf(sep, from);
            if (k < 0) {
                break;
            }
            out.add(s.substring(from, k));
            from = k + sep.length();
        }
        out.add(s.substring(from));
        return out;
    }

    /** {@code s.rsplit(sep, maxsplit)}: as {@link #split}, the splits counted from the end. */
    public static List<String> rsplit(String s, String sep, int maxsplit) {
        if (maxsplit < 0) {
            return split(s, sep, maxsplit);
        }
        if (sep == null) { // runs of whitespace from the end; the rest keeps its leading blanks
            List<String> out = new ArrayList<>();
            int j = s.length();
            while (true) {
                while (j > 0 && isSpace(s.charAt(j - 1))) {
                    j--;
                }
                if (j == 0) {
                    return out;
                }
                if (out.size() == maxsplit) {
                    out.addFirst(s.substring(0, j));
                    return out;
                }
                int i = j;
                while (i > 0 && !isSpace(s.charAt(i - 1))) {
                    i--;
                }
                out.addFirst(s.substring(i, j));
                j = i;
            }
        }
        if (sep.isEmpty()) {
            throw new IllegalArgumentException("empty separator");
        }
        List<String> out = new ArrayList<>();
        int end = s.length();
        while (out.size() < maxsplit) {
            int k = s.lastIndexOf(sep, end - sep.length());
            if (k < 0) {
                break;
            }
            out.addFirst(s.substring(k + sep.length(), end));
            end = k;
        }
        out.addFirst(s.substring(0, end));
        return out;
    }

    /** {@code s.splitlines()}: at every line boundary Python knows, no final empty line. */
    public static List<String> splitlines(String s) {
        List<String> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\n'
                    || c == '\r'
                    || c == 0x0b
                    || c == 0x0c
                    || c == 0x1c
                    || c == 0x1d
                    || c == 0x1e
                    || c == 0x85
                    || c == 0x2028
                    || c == 0x2029) {
                out.add(s.substring(start, i));
                if (c == '\r' && i + 1 < s.length() && s.charAt(i + 1) == '\n') {
                    i++;
                }
                start = i + 1;
            }
        }
        if (start < s.length()) {
            out.add(s.substring(start));
        }
        return out;
    }

    /** {@code s.replace(old, new, count)}: {@code count} below 0 replaces all. */
    public static String replace(String s, String old, String with, int count) {
        if (count < 0) {
            return s.replace(old, with);
        }
        StringBuilder sb = new StringBuilder();
        int from = 0;
        for (int n = 0; n < count; n++) {
            int k = s.indexOf(old, from);
            if (k < 0) {
                break;
            }
            sb.append(s, from, k).append(with);
            from = k + old.length();
        }
        return sb.append(s.substring(from)).toString();
    }

    /** {@code s.count(sub)}: non-overlapping occurrences; an empty {@code sub} counts the gaps. */
    public static long count(String s, String sub) {
        if (sub.isEmpty()) {
            return s.length() + 1L;
        }
        long n = 0;
        for (int k = s.indexOf(sub); k >= 0; k = s.indexOf(sub, k + sub.length())) {
            n++;
        }
        return n;
    }

    /** {@code s.capitalize()}: the first character upper case, the rest lower case. */
    public static String capitalize(String s) {
        if (s.isEmpty()) {
            return s;
        }
        int first = s.offsetByCodePoints(0, 1);
        return s.substring(0, first).toUpperCase(Locale.ROOT)
                + s.substring(first).toLowerCase(Locale.ROOT);
    }

    /** {@code s.title()}: a letter after a letter is lower case, any other upper case ({@code it's} is {@code It'S}). */
    public static String title(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        boolean previousCased = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            sb.append(previousCased ? Character.toLowerCase(c) : Character.toUpperCase(c));
            previousCased = Character.isLetter(c);
        }
        return sb.toString();
    }
}
