package forge.template.toolkit.calls;

import forge.api.template.ChatDelta;
import forge.api.template.OutputParser;
import forge.api.template.ToolCall;
import forge.lib.text.PythonJson;
import forge.lib.text.PythonText;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * An {@link OutputParser} for the formats chat models write: reasoning between two markers,
 * tool calls between two markers (or a whole answer that is one JSON call), content elsewhere.
 * A {@link ToolCallSyntax} describes its calls with a {@link Syntax}; this class does the
 * streaming: a text that may be the start of a marker is held back until the next {@link #feed}
 * decides it, so markup never leaks into content, and each tool call is emitted whole (one
 * {@link ChatDelta.ToolCallDelta} with complete JSON arguments) once its closing marker arrives.
 *
 * <p>A format whose blocks are JSON objects {@code {"name": ..., "<key>": {...}}} can name that
 * key ({@link Syntax#streamedArgumentsKey}): then a call's first delta goes out as soon as its name
 * is known, and its arguments follow as the model writes them, without the blanks outside strings,
 * so a client sees a long call grow (and a proxy sees bytes) instead of waiting for its end; this
 * works between markers, after an opening marker that runs to the end of the output, and for a
 * leading JSON call, where text after the call's object is kept as content. A block that does not
 * start that way is decoded whole, as before. Streamed arguments cannot be
 * taken back: a model cut off in the middle of them (max tokens) leaves the call's arguments
 * incomplete, as llama-server's streaming does.
 *
 * {@snippet :
 * var syntax = new MarkupParser.Syntax(new Reasoning("<think>", "</think>", false), "<tool_call>", "</tool_call>", false,
 *         block -> List.of(JsonCall.decode(block, "arguments")));
 * OutputParser parser = new MarkupParser(syntax);
 * parser.feed("<tool_call>\n{\"name\": \"f\", \"argu");   // []: held back
 * parser.feed("ments\": {}}\n</tool_call>");              // [ToolCallDelta(0, "call_…", "f", "{}")]
 * }
 */
public final class MarkupParser implements OutputParser {

    /**
     * A family's output format.
     *
     * @param reasoning          the reasoning markers, {@link Reasoning#NONE} when the format has none
     * @param callOpen           opens a tool-call block, or empty when the format has none
     * @param callClose          closes it; empty means the block runs to the end of the output
     * @param leadingJsonCall    an answer whose first non-blank character is <code>{</code> is held
     *                           whole and decoded as a call at the end (Llama 3's JSON calls)
     * @param decoder            turns a block's text (between the markers) into calls; throws
     *                           {@link IllegalArgumentException} when the text is not a call
     * @param streamedArgumentsKey for blocks that are JSON objects with {@code "name"} first, the
     *                           key of the arguments object, streamed as it is written; empty:
     *                           blocks are decoded whole
     */
    public record Syntax(
            Reasoning reasoning,
            String callOpen,
            String callClose,
            boolean leadingJsonCall,
            Function<String, List<ToolCall>> decoder,
            String streamedArgumentsKey) {
        public Syntax {
            Objects.requireNonNull(reasoning);
            Objects.requireNonNull(callOpen);
            Objects.requireNonNull(callClose);
            Objects.requireNonNull(decoder);
            Objects.requireNonNull(streamedArgumentsKey);
        }

        /** A format whose calls are decoded whole. */
        public Syntax(
                Reasoning reasoning,
                String callOpen,
                String callClose,
                boolean leadingJsonCall,
                Function<String, List<ToolCall>> decoder) {
            this(reasoning, callOpen, callClose, leadingJsonCall, decoder, "");
        }
    }

    /** Where a streamed call is: before its arguments, inside them, after them; or decoded whole. */
    private enum CallPhase {
        HEAD,
        ARGUMENTS,
        TAIL,
        WHOLE
    }

    /** How long a block may grow before its head must have shown {@code "name"} and the arguments key. */
    private static final int HEAD_LIMIT = 512;

    private enum State {
        CONTENT,
        REASONING,
        CALL,
        LEADING
    }

    private final Syntax syntax;
    private final StringBuilder buf = new StringBuilder();
    private State state;
    private int calls;
    private boolean trimNext;
    private boolean sawContent;
    /** The head of a streamed call, {@code {"name": "...", "<key>": }, up to the arguments' brace; null when not streamed. */
    private final Pattern head;

    private CallPhase phase = CallPhase.HEAD;
    private int depth;
    private boolean inString;
    private boolean escaped;

    public MarkupParser(Syntax syntax) {
        this.syntax = syntax;
        this.head = syntax.streamedArgumentsKey().isEmpty()
                ? null
                : Pattern.compile("\\A\\s*\\{\\s*\"name\"\\s*:\\s*(\"(?:[^\"\\\\]|\\\\.)*\")\\s*,\\s*\""
                        + Pattern.quote(syntax.streamedArgumentsKey()) + "\"\\s*:\\s*(?=\\{)");
        this.state =
                syntax.reasoning().startsInside() && !syntax.reasoning().close().isEmpty()
                        ? State.REASONING
                        : State.CONTENT;
    }

    @Override
    public List<ChatDelta> feed(String text) {
        buf.append(text);
        List<ChatDelta> out = new ArrayList<>();
        drain(out, false);
        return out;
    }

    @Override
    public List<ChatDelta> finish() {
        List<ChatDelta> out = new ArrayList<>();
        drain(out, true);
        return out;
    }

    private void drain(List<ChatDelta> out, boolean end) {
        while (true) {
            if (streamingCall()) {
                if (!streamCall(out, end)) {
                    return;
                }
                continue;
            }
            switch (state) {
                case CONTENT -> {
                    if (syntax.leadingJsonCall() && !sawContent) {
                        int i = firstNonBlank();
                        if (i < 0) {
                            if (end) {
                                emitContent(out, take(buf.length()));
                            }
                            return;
                        }
                        if (buf.charAt(i) == '{') {
                            state = State.LEADING;
                            continue;
                        }
                    }
                    int[] hit = earliest(syntax.reasoning().open(), syntax.callOpen());
                    if (hit == null) {
                        int keep = end ? 0 : heldPrefix(syntax.reasoning().open(), syntax.callOpen());
                        emitContent(out, take(buf.length() - keep));
                        return;
                    }
                    emitContent(out, take(hit[0]));
                    if (hit[1] == 0) {
                        buf.delete(0, syntax.reasoning().open().length());
                        state = State.REASONING;
                    } else {
                        buf.delete(0, syntax.callOpen().length());
                        state = State.CALL;
                    }
                }
                case REASONING -> {
                    int i = buf.indexOf(syntax.reasoning().close());
                    if (i < 0) {
                        int keep = end ? 0 : heldPrefix(syntax.reasoning().close());
                        emit(out, new ChatDelta.Reasoning(take(buf.length() - keep)));
                        return;
                    }
                    emit(out, new ChatDelta.Reasoning(take(i)));
                    buf.delete(0, syntax.reasoning().close().length());
                    state = State.CONTENT;
                    trimNext = true;
                }
                case CALL -> {
                    int i = syntax.callClose().isEmpty() ? -1 : buf.indexOf(syntax.callClose());
                    if (i < 0 && !end) {
                        return;
                    }
                    String block = i < 0 ? take(buf.length()) : take(i);
                    if (i >= 0) {
                        buf.delete(0, syntax.callClose().length());
                    }
                    if (!emitCalls(out, block)) {
                        // Not a call after all: the model's text is kept, markup included.
                        emitContent(out, syntax.callOpen() + block + (i >= 0 ? syntax.callClose() : ""));
                    }
                    state = State.CONTENT;
                    phase = CallPhase.HEAD;
                    trimNext = true;
                }
                case LEADING -> {
                    if (!end) {
                        return;
                    }
                    String all = take(buf.length());
                    state = State.CONTENT;
                    phase = CallPhase.HEAD;
                    sawContent = true;
                    if (!emitCalls(out, all.strip())) {
                        emitContent(out, all);
                    }
                    return;
                }
            }
        }
    }

    /** Whether a call is open (after its marker, or a leading JSON call) and streamed as it arrives rather than decoded whole. */
    private boolean streamingCall() {
        return (state == State.CALL || state == State.LEADING) && head != null && phase != CallPhase.WHOLE;
    }

    /**
     * One move of a streamed call; false when it needs more text. HEAD waits for the name and the
     * arguments key (or gives the block up to be decoded whole); ARGUMENTS passes the arguments
     * on, blanks outside strings dropped, until their object closes; TAIL drops the rest of the
     * block up to and including the closing marker.
     */
    private boolean streamCall(List<ChatDelta> out, boolean end) {
        switch (phase) {
            case HEAD -> {
                var m = head.matcher(buf);
                if (!m.lookingAt()) {
                    // hitEnd: the text so far is a prefix of a head, more may complete it.
                    if (end
                            || !m.hitEnd()
                            || buf.length() > HEAD_LIMIT
                            || !syntax.callClose().isEmpty() && buf.indexOf(syntax.callClose()) >= 0) {
                        phase = CallPhase.WHOLE; // not the streamed shape: decode the block whole
                        return true;
                    }
                    return false;
                }
                Object name = PythonJson.parse(m.group(1));
                buf.delete(0, m.end());
                phase = CallPhase.ARGUMENTS;
                depth = 0;
                inString = false;
                escaped = false;
                String id = "call_" + Long.toHexString(System.nanoTime()) + calls;
                out.add(new ChatDelta.ToolCallDelta(calls, id, String.valueOf(name), scanArguments()));
                return true;
            }
            case ARGUMENTS -> {
                if (buf.isEmpty()) {
                    return false;
                }
                String piece = scanArguments();
                if (!piece.isEmpty()) {
                    out.add(new ChatDelta.ToolCallDelta(calls, "", "", piece));
                }
                return phase != CallPhase.ARGUMENTS;
            }
            case TAIL -> {
                if (state == State.LEADING || syntax.callClose().isEmpty()) {
                    // No closing marker: the call runs to the end of the output. What follows the
                    // arguments is the object's brace; anything more is kept as content.
                    if (!end) {
                        return false;
                    }
                    String rest = PythonText.lstrip(take(buf.length()));
                    finishStreamedCall();
                    emitContent(out, rest.startsWith("}") ? rest.substring(1) : rest);
                    return true;
                }
                int i = buf.indexOf(syntax.callClose());
                if (i < 0) {
                    if (end) {
                        buf.setLength(0);
                        finishStreamedCall();
                        return true;
                    }
                    // What lies between the arguments and the marker is the object's brace: drop it,
                    // keeping only what may be the marker's start.
                    buf.delete(0, buf.length() - heldPrefix(syntax.callClose()));
                    return false;
                }
                buf.delete(0, i + syntax.callClose().length());
                finishStreamedCall();
                return true;
            }
            default -> throw new IllegalStateException(phase.toString());
        }
    }

    private void finishStreamedCall() {
        calls++;
        phase = CallPhase.HEAD;
        state = State.CONTENT;
        sawContent = true;
        trimNext = true;
    }

    /** Takes the arguments' text from the buffer up to where their object closes (then TAIL), blanks outside strings dropped. */
    private String scanArguments() {
        StringBuilder piece = new StringBuilder();
        int i = 0;
        while (i < buf.length()) {
            char c = buf.charAt(i++);
            if (inString) {
                piece.append(c);
                if (escaped) {
                    escaped = false;
                } else if (c == '\\') {
                    escaped = true;
                } else if (c == '"') {
                    inString = false;
                }
                continue;
            }
            if (Character.isWhitespace(c)) {
                continue;
            }
            piece.append(c);
            if (c == '"') {
                inString = true;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if ((c == '}' || c == ']') && --depth == 0) {
                phase = CallPhase.TAIL;
                break;
            }
        }
        buf.delete(0, i);
        return piece.toString();
    }

    private boolean emitCalls(List<ChatDelta> out, String block) {
        List<ToolCall> decoded;
        try {
            decoded = syntax.decoder().apply(block);
        } catch (RuntimeException e) {
            return false;
        }
        if (decoded.isEmpty()) {
            return false;
        }
        for (ToolCall c : decoded) {
            String id = c.id().isEmpty() ? "call_" + Long.toHexString(System.nanoTime()) + calls : c.id();
            out.add(new ChatDelta.ToolCallDelta(calls++, id, c.name(), c.arguments()));
        }
        return true;
    }

    private void emitContent(List<ChatDelta> out, String text) {
        if (trimNext) {
            text = PythonText.lstrip(text);
            if (text.isEmpty()) {
                return;
            }
            trimNext = false;
        }
        if (!text.isEmpty()) {
            sawContent = sawContent || !text.isBlank();
            out.add(new ChatDelta.Content(text));
        }
    }

    private static void emit(List<ChatDelta> out, ChatDelta.Reasoning r) {
        if (!r.text().isEmpty()) {
            out.add(r);
        }
    }

    private String take(int n) {
        String s = buf.substring(0, n);
        buf.delete(0, n);
        return s;
    }

    private int firstNonBlank() {
        for (int i = 0; i < buf.length(); i++) {
            if (!Character.isWhitespace(buf.charAt(i))) {
                return i;
            }
        }
        return -1;
    }

    /** {position, which marker} of the first marker in the buffer, or null. */
    private int[] earliest(String... markers) {
        int[] best = null;
        for (int m = 0; m < markers.length; m++) {
            if (markers[m].isEmpty()) {
                continue;
            }
            int i = buf.indexOf(markers[m]);
            if (i >= 0 && (best == null || i < best[0])) {
                best = new int[] {i, m};
            }
        }
        return best;
    }

    /** The length of the longest end of the buffer that could be the start of a marker. */
    private int heldPrefix(String... markers) {
        int keep = 0;
        for (String m : markers) {
            for (int n = Math.min(m.length() - 1, buf.length()); n > keep; n--) {
                if (buf.length() >= n && m.startsWith(buf.substring(buf.length() - n))) {
                    keep = n;
                    break;
                }
            }
        }
        return keep;
    }
}
