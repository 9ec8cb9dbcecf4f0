package forge.template.testkit;

import forge.api.template.ChatDelta;
import forge.api.template.OutputParser;
import java.util.ArrayList;
import java.util.List;

/** Feeding model output to a parser the way a stream would. */
public final class OutputFeeds {
    private OutputFeeds() {}

    /** All deltas of {@code text} fed one character (code point) at a time, as the worst tokenizer would, then {@code finish()}. */
    public static List<ChatDelta> feedCharByChar(OutputParser parser, String text) {
        List<ChatDelta> out = new ArrayList<>();
        text.codePoints().forEach(cp -> out.addAll(parser.feed(Character.toString(cp))));
        out.addAll(parser.finish());
        return out;
    }
}
