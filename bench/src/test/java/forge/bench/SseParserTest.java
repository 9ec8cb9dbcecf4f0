package forge.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseParserTest {

    static List<String> events(String stream) {
        SseParser p = new SseParser();
        List<String> out = new ArrayList<>();
        for (String line : stream.split("\n", -1)) {
            p.line(line).ifPresent(out::add);
        }
        p.finish().ifPresent(out::add);
        return out;
    }

    @Test
    void dataLinesAndBlankLines() {
        assertEquals(List.of("{\"a\":1}", "[DONE]"), events("data: {\"a\":1}\n\ndata: [DONE]\n\n"));
    }

    @Test
    void multiLineDataCommentsFieldsAndCrlf() {
        String s = ": keep-alive\r\nevent: message\r\nid: 7\r\ndata: line one\r\ndata:line two\r\n\r\n"
                + "data\n\nretry: 100\n\n";
        assertEquals(List.of("line one\nline two", ""), events(s));
    }

    @Test
    void lastEventWithoutBlankLineIsFlushedAtTheEnd() {
        assertEquals(List.of("x", "y"), events("data: x\n\ndata: y"));
    }

    @Test
    void onlyOneSpaceAfterTheColonIsDropped() {
        assertEquals(List.of("  two"), events("data:   two\n\n"));
    }
}
