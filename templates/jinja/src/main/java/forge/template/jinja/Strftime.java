package forge.template.jinja;

import java.time.LocalDateTime;

/** Python's {@code strftime} as transformers' {@code strftime_now} calls it: the C locale's names, the common directives. */
final class Strftime {

    private Strftime() {}

    // The C locale's names, as Python's strftime writes them. Java's Locale.ROOT has no full month
    // names ("Jan" for %B), and a JDK's CLDR data is not the C library's.
    private static final String[] MONTHS = {
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December"
    };
    private static final String[] DAYS = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};

    static String format(LocalDateTime t, String format) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < format.length(); i++) {
            char c = format.charAt(i);
            if (c != '%' || i + 1 >= format.length()) {
                sb.append(c);
                continue;
            }
            char d = format.charAt(++i);
            switch (d) {
                case 'd' -> sb.append(String.format("%02d", t.getDayOfMonth()));
                case 'm' -> sb.append(String.format("%02d", t.getMonthValue()));
                case 'Y' -> sb.append(t.getYear());
                case 'y' -> sb.append(String.format("%02d", t.getYear() % 100));
                case 'H' -> sb.append(String.format("%02d", t.getHour()));
                case 'M' -> sb.append(String.format("%02d", t.getMinute()));
                case 'S' -> sb.append(String.format("%02d", t.getSecond()));
                case 'b' -> sb.append(MONTHS[t.getMonthValue() - 1], 0, 3);
                case 'B' -> sb.append(MONTHS[t.getMonthValue() - 1]);
                case 'a' -> sb.append(DAYS[t.getDayOfWeek().ordinal()], 0, 3);
                case 'A' -> sb.append(DAYS[t.getDayOfWeek().ordinal()]);
                case 'j' -> sb.append(String.format("%03d", t.getDayOfYear()));
                case '%' -> sb.append('%');
                default -> sb.append('%').append(d);
            }
        }
        return sb.toString();
    }
}
