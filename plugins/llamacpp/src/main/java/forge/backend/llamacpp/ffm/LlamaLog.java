package forge.backend.llamacpp.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes llama.cpp's and ggml's log to SLF4J, logger {@code llama.cpp}.
 *
 * <p>llama.cpp logs a line in pieces ({@code GGML_LOG_LEVEL_CONT} continues the previous level),
 * so pieces are gathered per thread until a {@code '\n'}. The callback is an upcall: it must never
 * throw (an exception escaping it kills the JVM), so it catches everything. Its stub lives in
 * {@link Arena#global()}, as long as the libraries that hold the registration.
 *
 * <p>The error lines logged on a thread are kept, so that a failed {@code llama_*} call on that
 * thread (a model that will not load) can say why: {@link #takeLastError()}.
 */
@SuppressWarnings("restricted") // native access is this module's purpose; it is granted with --enable-native-access
public final class LlamaLog {
    private static final Logger LOG = LoggerFactory.getLogger("llama.cpp");

    // enum ggml_log_level
    static final int GGML_LOG_LEVEL_NONE = 0;
    static final int GGML_LOG_LEVEL_DEBUG = 1;
    static final int GGML_LOG_LEVEL_INFO = 2;
    static final int GGML_LOG_LEVEL_WARN = 3;
    static final int GGML_LOG_LEVEL_ERROR = 4;
    static final int GGML_LOG_LEVEL_CONT = 5;

    /** A line in the making, and the level it started with. */
    private static final class Line {
        final StringBuilder text = new StringBuilder();
        int level = GGML_LOG_LEVEL_INFO;
        /** Error lines since the last {@link #takeLastError()}: the first is the specific one, the last the summary. */
        final List<String> errors = new ArrayList<>(MAX_ERRORS);
    }

    private static final int MAX_ERRORS = 4;

    private static final ThreadLocal<Line> LINES = ThreadLocal.withInitial(Line::new);

    private static MemorySegment stub;

    private LlamaLog() {}

    /** Registers the callback with {@code llama_log_set} (which also sets ggml's); once per process. */
    static synchronized void install() {
        if (stub != null) {
            return;
        }
        try {
            // typedef void (*ggml_log_callback)(enum ggml_log_level level, const char * text, void * user_data);
            var target = MethodHandles.lookup()
                    .findStatic(
                            LlamaLog.class,
                            "callback",
                            MethodType.methodType(void.class, int.class, MemorySegment.class, MemorySegment.class));
            stub = Linker.nativeLinker()
                    .upcallStub(target, FunctionDescriptor.ofVoid(JAVA_INT, ADDRESS, ADDRESS), Arena.global());
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
        Llama.llama_log_set(stub, MemorySegment.NULL);
    }

    /** The callback's stub ({@link #install} first), for libmtmd's own log setter ({@link Mtmd#load}). */
    static synchronized MemorySegment stub() {
        install();
        return stub;
    }

    /** The upcall. Never throws. */
    private static void callback(int level, MemorySegment text, MemorySegment userData) {
        try {
            append(level, LlamaLibrary.cString(text));
        } catch (Throwable t) {
            // Nothing may escape an upcall; a failed log line is not worth a crash.
        }
    }

    /** Adds one piece of a log line; emits each complete line. Package-private for tests. */
    static void append(int level, String piece) {
        Line line = LINES.get();
        if (level != GGML_LOG_LEVEL_CONT) {
            // A new level starts a new line, even when the last one never got its newline
            // (the loader's progress dots).
            if (!line.text.isEmpty()) {
                emit(line);
            }
            line.level = level;
        }
        int start = 0;
        int nl;
        while ((nl = piece.indexOf('\n', start)) >= 0) {
            line.text.append(piece, start, nl);
            emit(line);
            start = nl + 1;
        }
        line.text.append(piece, start, piece.length());
    }

    private static void emit(Line line) {
        String text = line.text.toString();
        line.text.setLength(0);
        if (text.isBlank()) {
            return;
        }
        switch (line.level) {
            case GGML_LOG_LEVEL_ERROR -> {
                if (line.errors.size() < MAX_ERRORS) {
                    line.errors.add(text.strip());
                }
                LOG.error(text);
            }
            case GGML_LOG_LEVEL_WARN -> LOG.warn(text);
            case GGML_LOG_LEVEL_INFO, GGML_LOG_LEVEL_NONE -> LOG.info(text);
            default -> LOG.debug(text);
        }
    }

    /**
     * The error lines logged on this thread since the last call (the first few, joined with
     * {@code "; "}), or the empty string; clears them.
     */
    public static String takeLastError() {
        Line line = LINES.get();
        String e = String.join("; ", line.errors);
        line.errors.clear();
        return e;
    }
}
