package forge.lib.grammar;

/** GBNF for integers in a range: a port of llama.cpp's {@code build_min_max_int}. */
final class IntRange {

    private IntRange() {}

    private static void digitRange(StringBuilder out, char from, char to) {
        out.append('[');
        if (from == to) {
            out.append(from);
        } else {
            out.append(from).append('-').append(to);
        }
        out.append(']');
    }

    private static void moreDigits(StringBuilder out, int min, int max) {
        out.append("[0-9]");
        if (min == max && min == 1) {
            return;
        }
        out.append('{').append(min);
        if (max != min) {
            out.append(',');
            if (max != Integer.MAX_VALUE) {
                out.append(max);
            }
        }
        out.append('}');
    }

    private static void uniformRange(StringBuilder out, String from, String to) {
        int i = 0;
        while (i < from.length() && i < to.length() && from.charAt(i) == to.charAt(i)) {
            i++;
        }
        if (i > 0) {
            out.append('"').append(from, 0, i).append('"');
        }
        if (i < from.length() && i < to.length()) {
            if (i > 0) {
                out.append(' ');
            }
            int subLen = from.length() - i - 1;
            if (subLen > 0) {
                String fromSub = from.substring(i + 1);
                String toSub = to.substring(i + 1);
                String zeros = "0".repeat(subLen);
                String nines = "9".repeat(subLen);
                boolean toReached = false;
                out.append('(');
                if (fromSub.equals(zeros)) {
                    digitRange(out, from.charAt(i), (char) (to.charAt(i) - 1));
                    out.append(' ');
                    moreDigits(out, subLen, subLen);
                } else {
                    out.append('[').append(from.charAt(i)).append("] ");
                    out.append('(');
                    uniformRange(out, fromSub, nines);
                    out.append(')');
                    if (from.charAt(i) < to.charAt(i) - 1) {
                        out.append(" | ");
                        if (toSub.equals(nines)) {
                            digitRange(out, (char) (from.charAt(i) + 1), to.charAt(i));
                            toReached = true;
                        } else {
                            digitRange(out, (char) (from.charAt(i) + 1), (char) (to.charAt(i) - 1));
                        }
                        out.append(' ');
                        moreDigits(out, subLen, subLen);
                    }
                }
                if (!toReached) {
                    out.append(" | ");
                    digitRange(out, to.charAt(i), to.charAt(i));
                    out.append(' ');
                    uniformRange(out, zeros, toSub);
                }
                out.append(')');
            } else {
                out.append('[')
                        .append(from.charAt(i))
                        .append('-')
                        .append(to.charAt(i))
                        .append(']');
            }
        }
    }

    /** Appends alternatives matching the integers in [min, max]; Long.MIN_VALUE / MAX_VALUE mean unbounded. */
    static void build(long min, long max, StringBuilder out, int decimalsLeft, boolean topLevel) {
        boolean hasMin = min != Long.MIN_VALUE;
        boolean hasMax = max != Long.MAX_VALUE;
        if (hasMin && hasMax) {
            if (min < 0 && max < 0) {
                out.append("\"-\" (");
                build(-max, -min, out, decimalsLeft, true);
                out.append(')');
                return;
            }
            if (min < 0) {
                out.append("\"-\" (");
                build(0, -min, out, decimalsLeft, true);
                out.append(") | ");
                min = 0;
            }
            String minS = Long.toString(min);
            String maxS = Long.toString(max);
            for (int digits = minS.length(); digits < maxS.length(); digits++) {
                uniformRange(out, minS, "9".repeat(digits));
                minS = "1" + "0".repeat(digits);
                out.append(" | ");
            }
            uniformRange(out, minS, maxS);
            return;
        }
        int lessDecimals = Math.max(decimalsLeft - 1, 1);
        if (hasMin) {
            if (min < 0) {
                out.append("\"-\" (");
                build(Long.MIN_VALUE, -min, out, decimalsLeft, false);
                out.append(") | [0] | [1-9] ");
                moreDigits(out, 0, decimalsLeft - 1);
            } else if (min == 0) {
                if (topLevel) {
                    out.append("[0] | [1-9] ");
                    moreDigits(out, 0, lessDecimals);
                } else {
                    moreDigits(out, 1, decimalsLeft);
                }
            } else if (min <= 9) {
                char c = (char) ('0' + min);
                char rangeStart = topLevel ? '1' : '0';
                if (c > rangeStart) {
                    digitRange(out, rangeStart, (char) (c - 1));
                    out.append(' ');
                    moreDigits(out, 1, lessDecimals);
                    out.append(" | ");
                }
                digitRange(out, c, '9');
                out.append(' ');
                moreDigits(out, 0, lessDecimals);
            } else {
                String minS = Long.toString(min);
                int len = minS.length();
                char c = minS.charAt(0);
                if (c > '1') {
                    digitRange(out, topLevel ? '1' : '0', (char) (c - 1));
                    out.append(' ');
                    moreDigits(out, len, lessDecimals);
                    out.append(" | ");
                }
                digitRange(out, c, c);
                out.append(" (");
                build(Long.parseLong(minS.substring(1)), Long.MAX_VALUE, out, lessDecimals, false);
                out.append(')');
                if (c < '9') {
                    out.append(" | ");
                    digitRange(out, (char) (c + 1), '9');
                    out.append(' ');
                    moreDigits(out, len - 1, lessDecimals);
                }
            }
            return;
        }
        if (hasMax) {
            if (max >= 0) {
                if (topLevel) {
                    out.append("\"-\" [1-9] ");
                    moreDigits(out, 0, lessDecimals);
                    out.append(" | ");
                }
                build(0, max, out, decimalsLeft, true);
            } else {
                out.append("\"-\" (");
                build(-max, Long.MAX_VALUE, out, decimalsLeft, false);
                out.append(')');
            }
            return;
        }
        throw new IllegalArgumentException("at least one of min and max must be set");
    }
}
