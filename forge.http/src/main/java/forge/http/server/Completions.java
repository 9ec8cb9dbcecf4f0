package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.backend.TokenLogprobs;
import forge.api.backend.Vocabulary;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.ServedModel;
import forge.runtime.engine.FinishReason;
import forge.runtime.engine.Generation;
import forge.runtime.engine.GenerationEvent;
import forge.runtime.engine.GenerationRequest;
import forge.runtime.engine.TokenLogprob;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code POST /v1/completions}: raw text completion, no chat template. The prompt is a string,
 * several strings, token ids, or several lists of them; each prompt gets {@code n} choices,
 * indexed prompt by prompt. {@code echo} puts the prompt before the completion; with
 * {@code logprobs} too, the prompt's tokens come with their log-probabilities (the first has none),
 * as evaluation harnesses use to score texts; {@code suffix} asks for fill-in-the-middle, which
 * needs the model's FIM tokens.
 */
final class Completions {

    /** OpenAI's default for this endpoint (chat has none). */
    static final int DEFAULT_MAX_TOKENS = 16;
    /** FIM token texts by family: prefix, suffix, middle (Qwen and StarCoder; CodeLlama). */
    private static final List<List<String>> FIM = List.of(
            List.of("<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"),
            List.of("<fim_prefix>", "<fim_suffix>", "<fim_middle>"),
            List.of("<PRE>", "<SUF>", "<MID>"));
    /** The parameters handled here rather than by the chat parser whose sampling rules are shared. */
    private static final Set<String> OWN = Set.of("model", "prompt", "echo", "suffix", "best_of", "logprobs",
            "grammar", "response_format");

    private final ModelCatalog catalog;
    private final ForgeMetrics metrics;
    private final long keepAliveMillis;

    private final forge.runtime.plugin.SamplerStages stages;

    Completions(ModelCatalog catalog, ForgeMetrics metrics, long keepAliveMillis, forge.runtime.plugin.SamplerStages stages) {
        this.stages = stages;
        this.metrics = metrics;
        this.catalog = catalog;
        this.keepAliveMillis = keepAliveMillis;
    }

    void handle(JsonNode body, boolean strict, Request request, Response response, Callback callback) {
        // Sampling, stops, n, stream and the rest follow the chat rules exactly: the same reader.
        String name = Requests.model(body);
        GenerationParams common = GenerationParams.parse(body, DEFAULT_MAX_TOKENS, stages);
        StructuredOutput structured = StructuredOutput.parse(body, List.of());
        Set<String> ignored = Params.ignored(body, OWN, GenerationParams.NAMES, SamplingChain.handled(body, stages));
        int bestOf = Params.integer(body, "best_of", 1, 1, GenerationParams.MAX_CHOICES);
        if (bestOf != 1) {
            ignored.add("best_of");
        }
        Strictness.check(strict, ignored);
        boolean echo = Params.bool(body, "echo", false);
        // Here logprobs is a count of alternatives (chat's is a boolean plus top_logprobs).
        int logprobs = Params.integer(body, "logprobs", -1, 0, TokenLogprobs.MAX_TOP);
        JsonNode suffixNode = body.get("suffix");
        if (suffixNode != null && !suffixNode.isNull() && !suffixNode.isTextual()) {
            throw ApiError.badRequest("suffix", "'suffix' must be a string");
        }
        String suffix = suffixNode == null || suffixNode.isNull() ? "" : suffixNode.asText();

        ModelEntry entry = Requests.entry(catalog, name);
        ServedModel model = catalog.serve(entry);
        Vocabulary vocab = model.vocabulary();
        List<int[]> prompts = prompts(body.get("prompt"), vocab);
        if (!suffix.isEmpty()) {
            int[] fim = fimTokens(vocab);
            prompts = prompts.stream().map(p -> infill(fim, p, vocab.tokenize(suffix, false, false))).toList();
        }
        String id = "cmpl-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        List<Generation> gens = new ArrayList<>();
        List<Echo> echoes = new ArrayList<>();
        boolean score = echo && logprobs >= 0;
        int limit = Integer.MAX_VALUE;
        try {
            for (int[] prompt : prompts) {
                ContextFit fit = ContextFit.of(prompt.length, common.maxTokens(), model.engine().config().slotContext(), strict);
                limit = Math.min(limit, fit.maxTokens());
                // Special tokens written in the prompt are echoed as written; the BOS the tokenizer added is not.
                Echo e = echo ? new Echo(vocab.detokenize(prompt, true, true), prompt, score) : Echo.NONE;
                for (int i = 0; i < common.n(); i++) {
                    var shaped = structured.grammar().isEmpty() ? common.sampling()
                            : common.sampling().toBuilder().grammar(structured.grammar()).build();
                    var sampling = shaped.seed() >= 0 ? shaped.toBuilder().seed(shaped.seed() + i).build() : shaped;
                    gens.add(model.engine().submit(new GenerationRequest(id + "-" + gens.size(), prompt, sampling,
                            fit.maxTokens(), common.stops(), Set.of(), common.ignoreEos(), logprobs, score,
                            common.speculation())));
                    echoes.add(e);
                }
            }
        } catch (RuntimeException e) {
            gens.forEach(Generation::cancel);
            throw e;
        }
        request.addFailureListener(failure -> gens.forEach(Generation::cancel));
        if (!ignored.isEmpty()) {
            response.getHeaders().put("X-Forge-Ignored-Params", String.join(", ", ignored));
        }
        // With several prompts, each has its own room: the header names the smallest limit.
        response.getHeaders().put(ContextFit.HEADER, String.valueOf(limit));
        long created = System.currentTimeMillis() / 1000;
        try {
            if (common.stream()) {
                stream(logprobs >= 0, common.includeUsage(), entry.id(), id, created, gens, echoes, prompts, vocab, response, callback);
            } else {
                whole(logprobs >= 0, entry.id(), id, created, gens, echoes, prompts, vocab, new ClientWatch(request, response), response, callback);
            }
        } catch (InterruptedException e) {
            gens.forEach(Generation::cancel);
            Thread.currentThread().interrupt();
            callback.failed(e);
        } catch (RuntimeException e) {
            gens.forEach(Generation::cancel);
            throw e;
        }
    }

    /**
     * What a choice echoes: the prompt's text and, when its tokens are scored, the prompt itself.
     *
     * @param text   the prompt as text, or empty without {@code echo}
     * @param prompt the prompt's tokens
     * @param scored whether the prompt's tokens come with log-probabilities
     */
    record Echo(String text, int[] prompt, boolean scored) {
        static final Echo NONE = new Echo("", new int[0], false);

        /**
         * The logprobs entries of the prompt: its first token (no log-probability, nothing comes
         * before it) and the engine's entries for the rest.
         */
        List<TokenLogprob> entries(List<TokenLogprob> rest, Vocabulary vocab) {
            List<TokenLogprob> all = new ArrayList<>(rest.size() + 1);
            all.add(new TokenLogprob(vocab.piece(prompt[0], true), Float.NaN, List.of()));
            all.addAll(rest);
            return all;
        }

        /** Where the logprobs' text offsets start: after the echo, or at 0 when the echo's tokens are listed. */
        Logprobs.Offset offset(Vocabulary vocab) {
            if (!scored) {
                return new Logprobs.Offset(text.length());
            }
            // The BOS the tokenizer added is listed among the tokens but not echoed: it takes no room.
            boolean bosHidden = vocab.bos().isPresent() && prompt[0] == vocab.bos().getAsInt()
                    && !text.startsWith(new String(vocab.piece(prompt[0], true), java.nio.charset.StandardCharsets.UTF_8));
            return new Logprobs.Offset(0, bosHidden ? 1 : 0);
        }
    }

    private void whole(boolean logprobs, String model, String id, long created, List<Generation> gens, List<Echo> echoes,
                       List<int[]> prompts, Vocabulary vocab, ClientWatch watch, Response response, Callback callback) throws InterruptedException {
        ObjectNode body = OpenAiWire.envelope(id, created, model, "text_completion");
        ArrayNode choices = body.putArray("choices");
        int completion = 0;
        int[] cached = new int[prompts.size()];
        for (int index = 0; index < gens.size(); index++) {
            Echo echo = echoes.get(index);
            StringBuilder text = new StringBuilder(echo.text());
            List<TokenLogprob> tokens = new ArrayList<>();
            GenerationEvent.Done done = null;
            while (done == null) {
                switch (watch.next(gens.get(index), gens)) {
                    case GenerationEvent.PromptLogprobs p -> tokens.addAll(0, echo.entries(p.tokens(), vocab));
                    case GenerationEvent.Text t -> {
                        text.append(t.text());
                        tokens.addAll(t.logprobs());
                    }
                    case GenerationEvent.Failed f -> throw ApiError.failure(f.error());
                    case GenerationEvent.Done d -> done = d;
                }
            }
            metrics.generation(model, done.timings());
            if (done.reason() == FinishReason.CANCELLED) {
                gens.forEach(Generation::cancel);
                callback.failed(new EofException("client went away"));
                return;
            }
            ObjectNode choice = choices.addObject().put("index", index).put("text", text.toString());
            if (logprobs) {
                choice.set("logprobs", Logprobs.legacy(tokens, echo.offset(vocab)));
            } else {
                choice.putNull("logprobs");
            }
            choice.put("finish_reason", done.reason().wire());
            completion += done.timings().completionTokens();
            cached(cached, gens.size(), index, done.timings().cachedTokens());
        }
        body.set("usage", OpenAiWire.usage(promptTokens(prompts), completion, IntStream.of(cached).sum()));
        ForgeServer.sendJson(response, callback, 200, body);
    }

    private void stream(boolean logprobs, boolean includeUsage, String model, String id, long created, List<Generation> gens, List<Echo> echoes,
                        List<int[]> prompts, Vocabulary vocab, Response response, Callback callback) throws InterruptedException {
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
        ChoiceEvents events = new ChoiceEvents(gens);
        int completion = 0;
        int[] cached = new int[prompts.size()];
        List<Logprobs.Offset> offsets = new ArrayList<>();
        echoes.forEach(e -> offsets.add(logprobs ? e.offset(vocab) : null));
        try {
            for (int index = 0; index < gens.size(); index++) {
                // A scored echo goes out with its log-probabilities, once the prompt is computed.
                if (!echoes.get(index).text().isEmpty() && !echoes.get(index).scored()) {
                    SseWriter.send(response, chunk(id, created, model, index, echoes.get(index).text(), null, List.of(), offsets.get(index)));
                }
            }
            int open = gens.size();
            while (open > 0) {
                ChoiceEvents.Event next = SseWriter.nextOrKeepAlive(events, response, keepAliveMillis);
                switch (next.event()) {
                    case GenerationEvent.PromptLogprobs p -> {
                        Echo e = echoes.get(next.index());
                        SseWriter.send(response, chunk(id, created, model, next.index(), e.text(), null,
                                e.entries(p.tokens(), vocab), offsets.get(next.index())));
                    }
                    case GenerationEvent.Text t -> SseWriter.send(response,
                            chunk(id, created, model, next.index(), t.text(), null, t.logprobs(), offsets.get(next.index())));
                    case GenerationEvent.Failed f -> {
                        gens.forEach(Generation::cancel);
                        SseWriter.send(response, ApiError.failure(f.error()).toJson());
                        SseWriter.finish(response, callback);
                        return;
                    }
                    case GenerationEvent.Done d -> {
                        metrics.generation(model, d.timings());
                        if (d.reason() == FinishReason.CANCELLED) {
                            gens.forEach(Generation::cancel);
                            callback.failed(new EofException("client went away"));
                            return;
                        }
                        SseWriter.send(response, chunk(id, created, model, next.index(), "", d.reason().wire(), List.of(), offsets.get(next.index())));
                        completion += d.timings().completionTokens();
                        cached(cached, gens.size(), next.index(), d.timings().cachedTokens());
                        open--;
                    }
                }
            }
            if (includeUsage) {
                ObjectNode usage = OpenAiWire.envelope(id, created, model, "text_completion");
                usage.putArray("choices");
                usage.set("usage", OpenAiWire.usage(promptTokens(prompts), completion, IntStream.of(cached).sum()));
                SseWriter.send(response, usage);
            }
            SseWriter.finish(response, callback);
        } catch (IOException e) {
            gens.forEach(Generation::cancel);
            callback.failed(e);
        }
    }

    /** One streamed choice; {@code offset} is null when logprobs were not asked for. */
    private static ObjectNode chunk(String id, long created, String model, int index, String text, String finish,
                                    List<TokenLogprob> tokens, Logprobs.Offset offset) {
        ObjectNode c = OpenAiWire.envelope(id, created, model, "text_completion");
        ObjectNode choice = c.putArray("choices").addObject().put("index", index).put("text", text);
        if (offset == null) {
            choice.putNull("logprobs");
        } else {
            choice.set("logprobs", Logprobs.legacy(tokens, offset));
        }
        if (finish == null) {
            choice.putNull("finish_reason");
        } else {
            choice.put("finish_reason", finish);
        }
        return c;
    }

    /**
     * Records the prompt tokens a choice reused: the choices of one prompt ({@code n} of them, in
     * order) read the same prompt, which usage counts once, so its cached part is the most any of them reused.
     */
    private static void cached(int[] perPrompt, int choices, int index, int cachedTokens) {
        int prompt = index / (choices / perPrompt.length);
        perPrompt[prompt] = Math.max(perPrompt[prompt], cachedTokens);
    }

    private static int promptTokens(List<int[]> prompts) {
        return prompts.stream().mapToInt(p -> p.length).sum();
    }

    /** The prompts: a string, strings, token ids, or lists of token ids. */
    private static List<int[]> prompts(JsonNode node, Vocabulary vocab) {
        String bad = "'prompt' must be a string, an array of strings, or token ids (an array of integers, or of such arrays)";
        if (node == null || node.isNull()) {
            throw ApiError.badRequest("prompt", "'prompt' is required");
        }
        List<int[]> out = new ArrayList<>();
        if (node.isTextual()) {
            out.add(text(node.asText(), vocab, "prompt"));
        } else if (node.isArray() && !node.isEmpty() && node.get(0).isIntegralNumber()) {
            out.add(Requests.tokens(node, vocab, "prompt"));
        } else if (node.isArray() && !node.isEmpty() && node.size() <= GenerationParams.MAX_CHOICES) {
            for (int i = 0; i < node.size(); i++) {
                JsonNode item = node.get(i);
                if (item.isTextual()) {
                    out.add(text(item.asText(), vocab, "prompt[" + i + "]"));
                } else if (item.isArray()) {
                    out.add(Requests.tokens(item, vocab, "prompt[" + i + "]"));
                } else {
                    throw ApiError.badRequest("prompt[" + i + "]", bad);
                }
            }
        } else {
            throw ApiError.badRequest("prompt", bad + (node.isArray() ? " (1 to " + GenerationParams.MAX_CHOICES + " prompts)" : ""));
        }
        return out;
    }

    private static int[] text(String text, Vocabulary vocab, String at) {
        int[] ids = vocab.tokenize(text, true, true);
        if (ids.length == 0) {
            throw ApiError.badRequest(at, at + " is empty");
        }
        return ids;
    }

    /** The model's prefix, suffix and middle tokens, or a 400 when it has none. */
    private static int[] fimTokens(Vocabulary vocab) {
        for (List<String> texts : FIM) {
            OptionalInt pre = vocab.tokenOf(texts.get(0));
            OptionalInt suf = vocab.tokenOf(texts.get(1));
            OptionalInt mid = vocab.tokenOf(texts.get(2));
            if (pre.isPresent() && suf.isPresent() && mid.isPresent()) {
                return new int[] {pre.getAsInt(), suf.getAsInt(), mid.getAsInt()};
            }
        }
        throw ApiError.badRequest("suffix", "'suffix' needs fill-in-the-middle tokens, and this model has none");
    }

    /** Prefix-suffix-middle order, as llama-server's infill: the model writes what goes between. */
    private static int[] infill(int[] fim, int[] prefix, int[] suffix) {
        int[] out = new int[prefix.length + suffix.length + 3];
        out[0] = fim[0];
        System.arraycopy(prefix, 0, out, 1, prefix.length);
        out[prefix.length + 1] = fim[1];
        System.arraycopy(suffix, 0, out, prefix.length + 2, suffix.length);
        out[out.length - 1] = fim[2];
        return out;
    }
}
