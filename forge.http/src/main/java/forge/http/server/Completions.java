package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.backend.AdapterScale;
import forge.api.backend.FimTokens;
import forge.api.backend.TokenLogprobs;
import forge.api.backend.Vocabulary;
import forge.api.sampler.SamplingParams;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.ServedModel;
import forge.runtime.engine.GenerationEvent;
import forge.runtime.engine.GenerationRequest;
import forge.runtime.engine.TokenLogprob;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
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

    private final RunContext context;

    Completions(RunContext context) {
        this.context = context;
    }

    void handle(Fields body, boolean strict, Request request, Response response, Callback callback) {
        // Sampling, stops, n, stream and the rest follow the chat rules exactly: the same reader.
        String name = Requests.model(body);
        GenerationParams common = GenerationParams.parse(body, DEFAULT_MAX_TOKENS);
        StructuredOutput structured = StructuredOutput.format(body);
        int bestOf = Params.integer(body, "best_of", 1, 1, GenerationParams.MAX_CHOICES);
        if (bestOf != 1) {
            body.unused("best_of");
        }
        boolean echo = Params.bool(body, "echo", false);
        // Here logprobs is a count of alternatives (chat's is a boolean plus top_logprobs).
        int logprobs = Params.integer(body, "logprobs", -1, 0, TokenLogprobs.MAX_TOP);
        JsonNode suffixNode = body.get("suffix");
        if (suffixNode != null && !suffixNode.isNull() && !suffixNode.isTextual()) {
            throw ApiError.badRequest("suffix", "'suffix' must be a string");
        }
        String suffix = suffixNode == null || suffixNode.isNull() ? "" : suffixNode.asText();
        JsonNode promptNode = body.get("prompt");
        Set<String> ignored = body.ignored();
        Strictness.check(strict, ignored);

        ModelEntry entry = Requests.entry(context.catalog(), name);
        ServedModel model = context.catalog().serve(entry);
        List<AdapterScale> adapters = common.lora().resolve(name, entry, model);
        Vocabulary vocab = model.vocabulary();
        List<int[]> prompts = prompts(promptNode, vocab);
        if (!suffix.isEmpty()) {
            prompts = prompts.stream()
                    .map(p -> infill(vocab, p, suffix, "suffix"))
                    .toList();
        }
        // Every prompt is fitted (or refused) before anything is submitted; each has its own room.
        List<ContextFit> fits = new ArrayList<>();
        for (int[] prompt : prompts) {
            fits.add(ContextFit.of(
                    prompt.length, common.maxTokens(), model.engine().config().slotContext(), strict));
        }
        boolean score = echo && logprobs >= 0;
        List<int[]> asked = prompts;
        // Special tokens written in the prompt are echoed as written; the BOS the tokenizer added is not.
        List<Echo> echoes = new ArrayList<>();
        for (int[] prompt : prompts) {
            Echo e = echo ? new Echo(vocab.detokenize(prompt, true, true), prompt, score) : Echo.NONE;
            for (int i = 0; i < common.n(); i++) {
                echoes.add(e);
            }
        }
        SamplingParams sampling = structured.grammar().isEmpty()
                ? common.sampling()
                : common.sampling().toBuilder().grammar(structured.grammar()).build();
        // With several prompts, the header names the smallest limit.
        Run run = Run.start(
                Ids.next("cmpl-"),
                entry.id(),
                context.metrics(),
                prompts.size(),
                common.n(),
                sampling,
                (sequence, prompt, own) -> model.engine()
                        .submit(new GenerationRequest(
                                        sequence,
                                        asked.get(prompt),
                                        own,
                                        fits.get(prompt).maxTokens(),
                                        common.stops(),
                                        Set.of(),
                                        common.ignoreEos())
                                .withLogprobs(logprobs)
                                .withScorePrompt(score)
                                .withSpeculation(common.speculation())
                                .withAdapters(adapters)),
                ignored,
                fits.stream().mapToInt(ContextFit::maxTokens).min().orElseThrow(),
                request,
                response);
        long created = System.currentTimeMillis() / 1000;
        Answers answers = new Answers(run, created, echoes, vocab, logprobs >= 0);
        run.drive(callback, () -> {
            if (common.stream()) {
                answers.stream(common.includeUsage(), response, callback);
            } else {
                answers.whole(new ClientWatch(request, response), response, callback);
            }
        });
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
            boolean bosHidden = vocab.bos().isPresent()
                    && prompt[0] == vocab.bos().getAsInt()
                    && !text.startsWith(new String(vocab.piece(prompt[0], true), StandardCharsets.UTF_8));
            return new Logprobs.Offset(0, bosHidden ? 1 : 0);
        }
    }

    /** The run's choices written as {@code text_completion}s, whole or streamed. */
    private final class Answers {
        private final Run run;
        private final long created;
        private final List<Echo> echoes;
        private final Vocabulary vocab;
        private final boolean logprobs;

        Answers(Run run, long created, List<Echo> echoes, Vocabulary vocab, boolean logprobs) {
            this.run = run;
            this.created = created;
            this.echoes = echoes;
            this.vocab = vocab;
            this.logprobs = logprobs;
        }

        /** Collects every choice, then sends one {@code text_completion}. */
        void whole(ClientWatch watch, Response response, Callback callback) throws InterruptedException, IOException {
            ObjectNode body = OpenAiWire.envelope(run.id(), created, run.model(), "text_completion");
            ArrayNode choices = body.putArray("choices");
            for (int index = 0; index < run.size(); index++) {
                Echo echo = echoes.get(index);
                StringBuilder text = new StringBuilder(echo.text());
                List<TokenLogprob> tokens = new ArrayList<>();
                GenerationEvent.Done done = null;
                while (done == null) {
                    switch (run.next(watch).event()) {
                        case GenerationEvent.PromptLogprobs p -> tokens.addAll(0, echo.entries(p.tokens(), vocab));
                        case GenerationEvent.Text t -> {
                            text.append(t.text());
                            tokens.addAll(t.logprobs());
                        }
                        case GenerationEvent.Failed f ->
                            throw new IllegalStateException("the run core ends a failed run");
                        case GenerationEvent.Done d -> done = d;
                    }
                }
                ObjectNode choice = choices.addObject().put("index", index).put("text", text.toString());
                if (logprobs) {
                    choice.set("logprobs", Logprobs.legacy(tokens, echo.offset(vocab)));
                } else {
                    choice.putNull("logprobs");
                }
                choice.put("finish_reason", done.reason().wire());
            }
            Run.Usage u = run.usage();
            body.set("usage", OpenAiWire.usage(u.promptTokens(), u.completionTokens(), u.cachedTokens()));
            ForgeServer.sendJson(response, callback, 200, body);
        }

        /** Streams every choice's text as it comes, interleaved, ending with {@code data: [DONE]}. */
        void stream(boolean includeUsage, Response response, Callback callback)
                throws InterruptedException, IOException {
            SseWriter.start(response);
            List<Logprobs.Offset> offsets = new ArrayList<>();
            echoes.forEach(e -> offsets.add(logprobs ? e.offset(vocab) : null));
            for (int index = 0; index < run.size(); index++) {
                // A scored echo goes out with its log-probabilities, once the prompt is computed.
                if (!echoes.get(index).text().isEmpty() && !echoes.get(index).scored()) {
                    send(response, index, echoes.get(index).text(), null, List.of(), offsets.get(index));
                }
            }
            int open = run.size();
            while (open > 0) {
                ChoiceEvents.Event next = SseWriter.next(run::next, context.keepAliveMillis(), response, callback);
                if (next == null) {
                    return;
                }
                int index = next.index();
                switch (next.event()) {
                    case GenerationEvent.PromptLogprobs p -> {
                        Echo e = echoes.get(index);
                        send(response, index, e.text(), null, e.entries(p.tokens(), vocab), offsets.get(index));
                    }
                    case GenerationEvent.Text t ->
                        send(response, index, t.text(), null, t.logprobs(), offsets.get(index));
                    case GenerationEvent.Failed f -> throw new IllegalStateException("the run core ends a failed run");
                    case GenerationEvent.Done d -> {
                        send(response, index, "", d.reason().wire(), List.of(), offsets.get(index));
                        open--;
                    }
                }
            }
            if (includeUsage) {
                OpenAiWire.sendUsage(
                        response, OpenAiWire.envelope(run.id(), created, run.model(), "text_completion"), run.usage());
            }
            SseWriter.finish(response, callback);
        }

        /** Sends one streamed choice; {@code offset} is null when logprobs were not asked for. */
        private void send(
                Response response,
                int index,
                String text,
                String finish,
                List<TokenLogprob> tokens,
                Logprobs.Offset offset)
                throws IOException {
            ObjectNode c = OpenAiWire.envelope(run.id(), created, run.model(), "text_completion");
            ObjectNode choice =
                    c.putArray("choices").addObject().put("index", index).put("text", text);
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
            SseWriter.send(response, c);
        }
    }

    /** The prompts: a string, strings, token ids, or lists of token ids. */
    private static List<int[]> prompts(JsonNode node, Vocabulary vocab) {
        String bad =
                "'prompt' must be a string, an array of strings, or token ids (an array of integers, or of such arrays)";
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
            throw ApiError.badRequest(
                    "prompt", bad + (node.isArray() ? " (1 to " + GenerationParams.MAX_CHOICES + " prompts)" : ""));
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

    /**
     * {@code prefix} and {@code suffix} in prefix-suffix-middle order, as llama-server's infill:
     * the model writes what goes between. A model without FIM tokens is a 400 naming {@code param}
     * (the suffix field of the door that asks).
     */
    static int[] infill(Vocabulary vocab, int[] prefix, String suffix, String param) {
        return infill(fimTokens(vocab, param), prefix, vocab.tokenize(suffix, false, false));
    }

    /** Whether the model has fill-in-the-middle tokens (Ollama's {@code insert} capability). */
    static boolean fillsInTheMiddle(Vocabulary vocab) {
        return vocab.fim().isPresent();
    }

    /** The model's prefix, suffix and middle tokens, or a 400 naming {@code param} when its vocabulary has none. */
    private static int[] fimTokens(Vocabulary vocab, String param) {
        FimTokens fim = vocab.fim()
                .orElseThrow(() -> ApiError.badRequest(
                        param, "'" + param + "' needs fill-in-the-middle tokens, and this model has none"));
        return new int[] {fim.prefix(), fim.suffix(), fim.middle()};
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
