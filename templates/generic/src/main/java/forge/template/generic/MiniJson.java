package forge.template.generic;

/**
 * Just enough JSON reading for a tool call object {@code {"name": "...", "arguments": {...}}}:
 * finds the two members and returns the name unescaped and the arguments as their exact text.
 * This plugin has no JSON library, and the arguments must reach the client byte for byte.
 */
final class MiniJson {

    private MiniJson() {
    }

    /** {name, argumentsText}, or null when {@code text} is not such an object. */
    static String[] call(String text) {
        try {
            int[] pos = {0};
            String name = null;
            String args = null;
            skipSpace(text, pos);
            expect(text, pos, '{');
            skipSpace(text, pos);
            if (text.charAt(pos[0]) != '}') {
                while (true) {
                    skipSpace(text, pos);
                    String key = string(text, pos);
                    skipSpace(text, pos);
                    expect(text, pos, ':');
                    skipSpace(text, pos);
                    int start = pos[0];
                    skipValue(text, pos);
                    String value = text.substring(start, pos[0]);
                    if (key.equals("name") && value.startsWith("\"")) {
                        name = string(value, new int[] {0});
                    } else if (key.equals("arguments")) {
                        args = value;
                    }
                    skipSpace(text, pos);
                    if (text.charAt(pos[0]) == ',') {
                        pos[0]++;
                        continue;
                    }
                    break;
                }
            }
            expect(text, pos, '}');
            skipSpace(text, pos);
            if (pos[0] != text.length() || name == null) {
                return null;
            }
            return new String[] {name, args == null ? "{}" : args};
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static void skipSpace(String s, int[] pos) {
        while (pos[0] < s.length() && Character.isWhitespace(s.charAt(pos[0]))) {
            pos[0]++;
        }
    }

    private static void expect(String s, int[] pos, char c) {
        if (s.charAt(pos[0]) != c) {
            throw new IllegalArgumentException("expected " + c);
        }
        pos[0]++;
    }

    private static String string(String s, int[] pos) {
        expect(s, pos, '"');
        StringBuilder sb = new StringBuilder();
        while (true) {
            char c = s.charAt(pos[0]++);
            if (c == '"') {
                return sb.toString();
            }
            if (c == '\\') {
                char e = s.charAt(pos[0]++);
                switch (e) {
                    case 'n' -> sb.append('\n');
                    case 't' -> sb.append('\t');
                    case 'r' -> sb.append('\r');
                    case 'b' -> sb.append('\b');
                    case 'f' -> sb.append('\f');
                    case 'u' -> {
                        sb.append((char) Integer.parseInt(s.substring(pos[0], pos[0] + 4), 16));
                        pos[0] += 4;
                    }
                    default -> sb.append(e);
                }
            } else {
                sb.append(c);
            }
        }
    }

    /** Skips one value: balanced objects and arrays, strings with escapes, scalars. */
    private static void skipValue(String s, int[] pos) {
        char c = s.charAt(pos[0]);
        if (c == '"') {
            string(s, pos);
            return;
        }
        if (c == '{' || c == '[') {
            int depth = 0;
            while (true) {
                char d = s.charAt(pos[0]);
                if (d == '"') {
                    string(s, pos);
                    continue;
                }
                pos[0]++;
                if (d == '{' || d == '[') {
                    depth++;
                } else if (d == '}' || d == ']') {
                    depth--;
                    if (depth == 0) {
                        return;
                    }
                }
            }
        }
        int start = pos[0];
        while (pos[0] < s.length() && ",}] \t\r\n".indexOf(s.charAt(pos[0])) < 0) {
            pos[0]++;
        }
        if (start == pos[0]) {
            throw new IllegalArgumentException("expected a value");
        }
    }
}
