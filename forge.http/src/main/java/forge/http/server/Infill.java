package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.backend.FimTokens;
import forge.api.backend.Vocabulary;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.ServedModel;
import forge.runtime.engine.FinishReason;
import forge.runtime.engine.GenerationEvent;
import forge.runtime.engine.GenerationRequest;
import forge.runtime.engine.Timings;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongSupplier;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code POST /infill}: code completion at a cursor, the route llama.cpp's editor plugins
 * (llama.vscode, llama.vim) call on every keystroke. The body is llama-server's:
 * {@code input_prefix} and {@code input_suffix} (the code above and below the cursor),
 * {@code input_extra} (chunks of other files, {@code {filename, text}}), {@code prompt} (text the
 * model continues after the prefix), {@code n_predict}, {@code t_max_predict_ms}, {@code n_indent},
 * the sampling fields of {@link GenerationParams} (with {@code samplers}), {@code stop} and
 * {@code stream}; the answer is llama-server's own completion object ({@code content},
 * {@code stop_type}, {@code tokens_cached}, {@code timings}), or a stream of them.
 *
 * <p>The prompt is laid out as llama-server's {@code format_prompt_infill} does, so the same body
 * gives the same tokens on both servers: the extra chunks in the repository-level pattern of
 * Qwen2.5-Coder when the vocabulary has the repo and file-separator tokens, then
 * {@code FIM_PRE prefix prompt FIM_SUF suffix FIM_MID}, the prefix and suffix cut to fit a batch
 * (3:1) and the chunks to the rest of the slot. A model whose vocabulary has no FIM tokens is
 * refused with a 400. An editor cancels most of these requests as the user types on: the client's
 * departure cancels the run (the run core), and the next request finds its prefix in the slot or
 * the prompt cache.
 */
final class Infill {

    /** Chunks of other files per request: each is tokenized, so a bound keeps a body from costing much. */
    static final int MAX_EXTRA = 256;
    /** llama-server's repository name in the repo-level pattern ({@code "myproject\n"}, a TODO there). */
    private static final String REPOSITORY = "myproject\n";
    /** llama-server's name of the file being edited in that pattern ({@code "filename\n"}). */
    private static final String CURRENT_FILE = "filename\n";
    /** What separates chunks without a file-separator token: {@code "\n\n--- snippet ---\n\n"}. */
    private static final String SNIPPET = "\n\n--- snippet ---\n\n";
    /**
     * llama-server's server-wide {@code n_predict} (its default, -1), which its layout reserves room
     * for twice; the request's own {@code n_predict} does not change the layout.
     */
    private static final int SERVER_N_PREDICT = -1;

    private final RunContext context;

    Infill(RunContext context) {
        this.context = context;
    }

    void handle(Fields body, boolean strict, Request request, Response response, Callback callback) {
        String name = Requests.model(body);
        int nPredict = Params.integer(body, "n_predict", -1, -1, Integer.MAX_VALUE);
        if (nPredict == 0) {
            throw ApiError.badRequest("n_predict", "'n_predict' must be -1 (up to the context) or positive");
        }
        GenerationParams common = GenerationParams.parse(body, nPredict);
        if (common.n() != 1) {
            throw ApiError.badRequest("n", "'n' must be 1 on /infill: it answers with one completion");
        }
        String prefix = Params.required(body, "input_prefix", "");
        String suffix = Params.required(body, "input_suffix", "");
        List<Chunk> extra = extra(body.get("input_extra"));
        String prompt = Objects.requireNonNullElse(Params.string(body, "prompt", "", Integer.MAX_VALUE), "");
        long maxPredictMillis = Params.int64(body, "t_max_predict_ms", 0);
        if (maxPredictMillis < 0) {
            throw ApiError.badRequest("t_max_predict_ms", "'t_max_predict_ms' must not be negative");
        }
        int indent = Params.integer(body, "n_indent", 0, 0, Integer.MAX_VALUE);
        Set<String> ignored = body.ignored();
        Strictness.check(strict, ignored);

        ModelEntry entry = Requests.entry(context.catalog(), name);
        ServedModel model = context.catalog().serve(entry);
        Vocabulary vocab = model.vocabulary();
        FimTokens fim = vocab.fim()
                .orElseThrow(() -> ApiError.badRequest(
                        "input_prefix",
                        "infill is not supported by this model: its vocabulary has no fill-in-the-middle"
                                + " (prefix, suffix and middle) tokens"));
        int[] tokens = layout(
                vocab,
                fim,
                prefix,
                suffix,
                extra,
                vocab.tokenize(prompt, false, true),
                model.engine().config().batchSize(),
                model.engine().config().slotContext());
        ContextFit fit = ContextFit.of(
                tokens.length, common.maxTokens(), model.engine().config().slotContext(), strict);
        Run run = Run.start(
                Ids.next("cmpl-"),
                entry.id(),
                context.metrics(),
                1,
                1,
                common.sampling(),
                (sequence, p, own) -> model.engine()
                        .submit(new GenerationRequest(
                                        sequence,
                                        tokens,
                                        own,
                                        fit.maxTokens(),
                                        common.stops(),
                                        Set.of(),
                                        common.ignoreEos())
                                .withSpeculation(common.speculation())),
                ignored,
                fit.maxTokens(),
                request,
                response);
        Limits limits = new Limits(maxPredictMillis, indent, System::nanoTime);
        // The prompt as text, special tokens spelled out, as llama-server's final object has it.
        String promptText = vocab.detokenize(tokens, false, true);
        run.drive(callback, () -> {
            if (common.stream()) {
                stream(run, limits, tokens.length, promptText, response, callback);
            } else {
                whole(run, limits, promptText, new ClientWatch(request, response), response, callback);
            }
        });
    }

    /** One chunk of another file: {@code filename} defaults to {@code tmp}, as llama-server has it. */
    record Chunk(String filename, String text) {}

    /**
     * The prompt, as llama-server's {@code format_prompt_infill} lays it out (spm_infill off):
     * <pre>
     * [FIM_REP]myproject\n [FIM_SEP]filename0\n chunk0 ... [FIM_SEP]filename\n
     * [BOS] [FIM_PRE] prefix prompt [FIM_SUF] suffix [FIM_MID]
     * </pre>
     * Without a file-separator token the chunks are joined by a snippet line instead. The prefix
     * keeps its last {@code 3 * batch / 4} tokens, the suffix its first {@code batch / 4 - 2 - |prompt|},
     * and the extra context its last {@code slotContext - batch + 2} tokens.
     */
    static int[] layout(
            Vocabulary vocab,
            FimTokens fim,
            String prefix,
            String suffix,
            List<Chunk> extra,
            int[] prompt,
            int batch,
            int slotContext) {
        int[] prefixTokens = vocab.tokenize(prefix, false, false);
        int[] suffixTokens = vocab.tokenize(suffix, false, false);
        Tokens extraTokens = new Tokens();
        if (fim.repository().isPresent()) {
            extraTokens.add(fim.repository().getAsInt());
            extraTokens.add(vocab.tokenize(REPOSITORY, false, false));
        }
        for (Chunk chunk : extra) {
            if (fim.separator().isPresent()) {
                extraTokens.add(fim.separator().getAsInt());
                extraTokens.add(vocab.tokenize(chunk.filename() + "\n", false, false));
            } else {
                extraTokens.add(vocab.tokenize(SNIPPET, false, false));
            }
            extraTokens.add(vocab.tokenize(chunk.text(), false, false));
        }
        if (fim.separator().isPresent()) {
            extraTokens.add(fim.separator().getAsInt());
            extraTokens.add(vocab.tokenize(CURRENT_FILE, false, false));
        }
        int prefixTake = Math.min(prefixTokens.length, 3 * (batch / 4));
        int suffixTake = Math.min(suffixTokens.length, Math.max(0, batch / 4 - (2 + prompt.length)));
        int extraTake = Math.min(Math.max(0, slotContext - batch - 2 * SERVER_N_PREDICT), extraTokens.size());

        Tokens out = new Tokens();
        int[] all = extraTokens.toArray();
        out.add(Arrays.copyOfRange(all, all.length - extraTake, all.length));
        if (vocab.addsBos() && vocab.bos().isPresent()) {
            out.add(vocab.bos().getAsInt());
        }
        out.add(fim.prefix());
        out.add(Arrays.copyOfRange(prefixTokens, prefixTokens.length - prefixTake, prefixTokens.length));
        out.add(prompt);
        out.add(fim.suffix());
        out.add(Arrays.copyOf(suffixTokens, suffixTake));
        out.add(fim.middle());
        return out.toArray();
    }

    /** A growing list of token ids. */
    private static final class Tokens {
        private int[] ids = new int[64];
        private int size;

        void add(int id) {
            if (size == ids.length) {
                ids = Arrays.copyOf(ids, size * 2);
            }
            ids[size++] = id;
        }

        void add(int[] more) {
            if (size + more.length > ids.length) {
                ids = Arrays.copyOf(ids, Math.max(size * 2, size + more.length));
            }
            System.arraycopy(more, 0, ids, size, more.length);
            size += more.length;
        }

        int size() {
            return size;
        }

        int[] toArray() {
            return Arrays.copyOf(ids, size);
        }
    }

    private static List<Chunk> extra(JsonNode node) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        String shape = "'input_extra' must be an array of {\"filename\": string, \"text\": string}";
        if (!node.isArray()) {
            throw ApiError.badRequest("input_extra", shape);
        }
        if (node.size() > MAX_EXTRA) {
            throw ApiError.badRequest("input_extra", "'input_extra' has more than " + MAX_EXTRA + " chunks");
        }
        List<Chunk> chunks = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
            JsonNode chunk = node.get(i);
            String at = "input_extra[" + i + "]";
            if (!chunk.isObject()) {
                throw ApiError.badRequest(at, shape);
            }
            if (!chunk.path("text").isTextual()) {
                throw ApiError.badRequest(at + ".text", "'" + at + ".text' is required and must be a string");
            }
            JsonNode filename = chunk.get("filename");
            if (filename != null && !filename.isNull() && !filename.isTextual()) {
                throw ApiError.badRequest(at + ".filename", "'" + at + ".filename' must be a string");
            }
            chunks.add(new Chunk(
                    filename == null || filename.isNull() ? "tmp" : filename.asText(),
                    chunk.get("text").asText()));
        }
        return chunks;
    }

    /**
     * llama-server's editor limits, checked on the generated text as it comes: past
     * {@code t_max_predict_ms} of generation, a new line ends it; with {@code n_indent}, a line
     * indented less than that ends it, cut before the line's first character.
     */
    static final class Limits {
        private final LongSupplier clock;
        private final long maxPredictNanos;
        private final int indent;
        private final StringBuilder text = new StringBuilder();
        private boolean started;
        private long firstToken;
        private int lastLineStart = -1;

        /** @param clock nanoseconds, as {@link System#nanoTime} */
        Limits(long maxPredictMillis, int indent, LongSupplier clock) {
            this.clock = clock;
            this.maxPredictNanos = maxPredictMillis * 1_000_000L;
            this.indent = indent;
        }

        /**
         * Takes one piece of text; returns the part to send, and whether generation ends with it
         * ({@link Cut#stop}).
         */
        Cut accept(String piece) {
            long now = clock.getAsLong();
            if (!started) {
                started = true;
                firstToken = now;
            }
            int start = text.length();
            text.append(piece);
            // Each line begun so far, from the last one seen before this piece: once it has a
            // character other than indentation, it must be indented by n_indent (the first line,
            // which continues the prefix, is not checked, as in llama-server).
            int line = lastLineStart;
            int scan = start;
            boolean newline = false;
            while (true) {
                if (indent > 0 && line >= 0) {
                    int pos = line;
                    while (pos < text.length() && (text.charAt(pos) == ' ' || text.charAt(pos) == '\t')) {
                        pos++;
                    }
                    if (pos < text.length() && pos - line < indent) {
                        text.setLength(pos);
                        return new Cut(pos > start ? text.substring(start, pos) : "", true);
                    }
                }
                int next = text.indexOf("\n", scan);
                if (next < 0) {
                    break;
                }
                newline = true;
                line = next + 1;
                scan = next + 1;
            }
            lastLineStart = line;
            if (newline && maxPredictNanos > 0 && now - firstToken > maxPredictNanos) {
                return new Cut(piece, true);
            }
            return new Cut(piece, false);
        }

        boolean hasNewLine() {
            return text.indexOf("\n") >= 0;
        }

        String text() {
            return text.toString();
        }
    }

    /** What {@link Limits#accept} lets through, and whether generation stops there. */
    record Cut(String text, boolean stop) {}

    /** Collects the completion, then answers with llama-server's final completion object. */
    private static void whole(
            Run run, Limits limits, String prompt, ClientWatch watch, Response response, Callback callback)
            throws InterruptedException, IOException {
        GenerationEvent.Done done = null;
        boolean stopped = false;
        while (done == null) {
            switch (run.next(watch).event()) {
                case GenerationEvent.Text t -> {
                    if (!stopped && limits.accept(t.text()).stop()) {
                        stopped = true;
                        run.stop(0);
                    }
                }
                case GenerationEvent.PromptLogprobs p -> {}
                case GenerationEvent.Failed f -> throw new IllegalStateException("the run core ends a failed run");
                case GenerationEvent.Done d -> done = d;
            }
        }
        ForgeServer.sendJson(response, callback, 200, last(run, limits.text(), prompt, limits.hasNewLine(), done));
    }

    /** Streams each piece of text as llama-server's partial objects, then the final one; no closing sentinel. */
    private void stream(Run run, Limits limits, int promptTokens, String prompt, Response response, Callback callback)
            throws InterruptedException, IOException {
        SseWriter.start(response);
        int predicted = 0;
        boolean stopped = false;
        while (true) {
            ChoiceEvents.Event next;
            try {
                next = run.next(() -> SseWriter.keepAlive(response), context.keepAliveMillis());
            } catch (ApiError e) {
                SseWriter.send(response, e.toJson());
                SseWriter.end(response, callback);
                return;
            }
            switch (next.event()) {
                case GenerationEvent.Text t -> {
                    if (stopped) {
                        continue;
                    }
                    Cut cut = limits.accept(t.text());
                    predicted += t.tokens();
                    if (cut.stop()) {
                        stopped = true;
                        run.stop(0);
                    }
                    if (!cut.text().isEmpty()) {
                        ObjectNode partial =
                                Json.MAPPER.createObjectNode().put("index", 0).put("content", cut.text());
                        partial.putArray("tokens");
                        partial.put("stop", false)
                                .put("id_slot", -1)
                                .put("tokens_predicted", predicted)
                                .put("tokens_evaluated", promptTokens);
                        SseWriter.send(response, partial);
                    }
                }
                case GenerationEvent.PromptLogprobs p -> {}
                case GenerationEvent.Failed f -> throw new IllegalStateException("the run core ends a failed run");
                case GenerationEvent.Done d -> {
                    // The final object repeats no text: the partial ones carried it all.
                    SseWriter.send(response, last(run, "", prompt, limits.hasNewLine(), d));
                    SseWriter.end(response, callback);
                    return;
                }
            }
        }
    }

    /** llama-server's final completion object ({@code to_json_non_oaicompat}). */
    private static ObjectNode last(
            Run run, String content, String prompt, boolean hasNewLine, GenerationEvent.Done done) {
        Timings t = done.timings();
        ObjectNode out = Json.MAPPER.createObjectNode().put("index", 0).put("content", content);
        out.putArray("tokens");
        out.put("id_slot", -1)
                .put("stop", true)
                .put("model", run.model())
                .put("tokens_predicted", t.completionTokens())
                .put("tokens_evaluated", t.promptTokens())
                .put("prompt", prompt)
                .put("has_new_line", hasNewLine)
                .put("truncated", false)
                .put("stop_type", stopType(done))
                .put("stopping_word", done.stopSequence())
                .put("tokens_cached", t.promptTokens() + t.completionTokens());
        int computed = t.promptTokens() - t.cachedTokens();
        out.putObject("timings")
                .put("cache_n", t.cachedTokens())
                .put("prompt_n", computed)
                .put("prompt_ms", t.promptMs())
                .put("prompt_per_token_ms", computed > 0 ? t.promptMs() / computed : 0)
                .put("prompt_per_second", t.promptTokensPerSecond())
                .put("predicted_n", t.completionTokens())
                .put("predicted_ms", t.decodeMs())
                .put("predicted_per_token_ms", t.completionTokens() > 0 ? t.decodeMs() / t.completionTokens() : 0)
                .put("predicted_per_second", t.decodeTokensPerSecond());
        return out;
    }

    /** llama-server's {@code stop_type}: {@code eos}, {@code word} (a stop string), {@code limit}. */
    private static String stopType(GenerationEvent.Done done) {
        if (done.reason() == FinishReason.LENGTH) {
            return "limit";
        }
        return done.stopSequence().isEmpty() ? "eos" : "word";
    }
}
