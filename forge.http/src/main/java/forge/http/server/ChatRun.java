package forge.http.server;

import forge.api.template.ChatDelta;
import forge.api.template.ToolCall;
import forge.runtime.catalog.ChatGeneration;
import forge.runtime.catalog.ChatOptions;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.PreparedChat;
import forge.runtime.catalog.ServedModel;
import forge.runtime.engine.FinishReason;
import forge.runtime.engine.Generation;
import forge.runtime.engine.GenerationEvent;
import forge.runtime.engine.Timings;
import forge.runtime.engine.TokenLogprob;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * One chat request on the one generation path that every chatting route shares (OpenAI chat
 * completions, Anthropic Messages, OpenAI Responses): the model resolved, the output's shape
 * turned into a grammar, the prompt rendered once and fitted to the slot ({@link ContextFit}),
 * {@code n} choices submitted, the client's departure wired to cancel them; then the engine's
 * events parsed by the template into {@link ChatDelta}s, and usage and metrics kept. A route is a
 * translator around it: its request into a {@link ChatRequest}, these events into its wire format.
 *
 * <p>Failures arrive as exceptions, once every choice is cancelled: the generation's own failure
 * as an {@link ApiError} (a route that is already streaming writes it as its error event), the
 * client gone as an {@link EofException}. {@link #drive} turns them into the request's end.
 */
final class ChatRun {

    /** What the run reports, choice by choice. */
    sealed interface Event permits Deltas, Finished {
        int index();
    }

    /**
     * Parsed output of choice {@code index}, and the log-probabilities of the tokens sampled since
     * its last event (when asked for; a token whose text the parser holds back comes here all the
     * same, so {@code deltas} may be empty).
     */
    record Deltas(int index, List<ChatDelta> deltas, List<TokenLogprob> logprobs) implements Event {
    }

    /**
     * Choice {@code index} ended (its last deltas came before).
     *
     * @param stopSequence the request's stop string that ended it, else empty
     * @param toolCalls    whether the choice called tools
     */
    record Finished(int index, FinishReason reason, Timings timings, String stopSequence, boolean toolCalls)
            implements Event {
    }

    /** A whole choice, collected. */
    record Answer(String content, String reasoning, List<ToolCall> toolCalls, List<TokenLogprob> logprobs,
                  Finished finish) {
    }

    /** Token counts as OpenAI counts them: the shared prompt once, every choice's completion. */
    record Usage(int promptTokens, int cachedTokens, int completionTokens) {
    }

    /** What a streaming route does while no event comes: a keep-alive in its own wire format. */
    interface Idle {
        void waiting() throws IOException;
    }

    /** A route's response body, which may fail the ways a run does. */
    interface Body {
        void write() throws IOException, InterruptedException;
    }

    private final String id;
    private final ModelEntry entry;
    private final ChatRequest request;
    private final List<ChatGeneration> choices;
    private final List<Generation> generations;
    private final ForgeMetrics metrics;
    private final ArrayDeque<Event> ready = new ArrayDeque<>();
    private final boolean[] toolCalls;
    private ChoiceEvents merged;
    private int current;
    private int promptTokens;
    private int cachedTokens;
    private int completionTokens;

    private ChatRun(String id, ModelEntry entry, ChatRequest request, List<ChatGeneration> choices, ForgeMetrics metrics) {
        this.id = id;
        this.entry = entry;
        this.request = request;
        this.choices = choices;
        this.generations = choices.stream().map(ChatGeneration::generation).toList();
        this.metrics = metrics;
        this.toolCalls = new boolean[choices.size()];
    }

    /**
     * Submits {@code req}: refusals (an unknown model, a shape that cannot be enforced, a prompt
     * that does not fit) are thrown before anything is generated or written. Names the parameters
     * without effect and the effective {@code max_tokens} in the response's headers.
     *
     * @param strict {@code --strict}: a {@code max_tokens} beyond the slot is refused, not fitted
     */
    static ChatRun start(ModelCatalog catalog, ForgeMetrics metrics, ChatRequest req, String id, boolean strict,
                         Request request, Response response) {
        ModelEntry entry = Requests.entry(catalog, req.model());
        ServedModel model = catalog.serve(entry);
        // The output's shape becomes a grammar before anything is generated: a bad one is a 400 here.
        StructuredOutput.Applied shaped = req.structured().apply(model.template(), req.prompt(), req.sampling());
        java.util.SortedSet<String> ignored = new java.util.TreeSet<>(req.ignored());
        ignored.addAll(shaped.unenforced());
        Strictness.check(strict, new java.util.TreeSet<>(shaped.unenforced()));
        PreparedChat prepared = model.prepare(shaped.prompt());
        ContextFit fit = ContextFit.of(prepared.tokens().length, req.maxTokens(), model.engine().config().slotContext(), strict);
        // n choices are n sequences decoded side by side; a fixed seed gives each its own stream.
        List<ChatGeneration> choices = new ArrayList<>(req.n());
        try {
            for (int i = 0; i < req.n(); i++) {
                var sampling = shaped.sampling().seed() >= 0
                        ? shaped.sampling().toBuilder().seed(shaped.sampling().seed() + i).build() : shaped.sampling();
                choices.add(model.chat(prepared, new ChatOptions(req.n() == 1 ? id : id + "-" + i, sampling,
                        fit.maxTokens(), req.stops(), req.ignoreEos(), req.logprobs())));
            }
        } catch (RuntimeException e) {
            choices.forEach(c -> c.generation().cancel());
            throw e;
        }
        // A client that goes away cancels its generations; the engine frees the slots at its next step.
        request.addFailureListener(failure -> choices.forEach(c -> c.generation().cancel()));
        if (!ignored.isEmpty()) {
            response.getHeaders().put("X-Forge-Ignored-Params", String.join(", ", ignored));
        }
        response.getHeaders().put(ContextFit.HEADER, String.valueOf(fit.maxTokens()));
        return new ChatRun(id, entry, req, choices, metrics);
    }

    /** The response's id, as the route chose it. */
    String id() {
        return id;
    }

    /** The model's canonical id. */
    String model() {
        return entry.id();
    }

    ChatRequest request() {
        return request;
    }

    /** How many choices run. */
    int size() {
        return choices.size();
    }

    /** The rendered prompt's tokens, known before anything is generated. */
    int promptTokens() {
        return choices.getFirst().promptTokens();
    }

    /** The usage so far: complete once every choice finished. */
    Usage usage() {
        return new Usage(promptTokens, cachedTokens, completionTokens);
    }

    /** Cancels every choice; the engine frees their slots at its next step. */
    void cancel() {
        generations.forEach(Generation::cancel);
    }

    /**
     * Writes a route's response, ending the request the way its failure says: a client gone or an
     * interrupt fails the callback; any other exception is for the router, which answers it (or,
     * past the status line, ends the connection). Every choice is cancelled on the way out.
     */
    void drive(Callback callback, Body body) {
        try {
            body.write();
        } catch (IOException e) {
            cancel();
            callback.failed(e);
        } catch (InterruptedException e) {
            cancel();
            Thread.currentThread().interrupt();
            callback.failed(e);
        } catch (RuntimeException e) {
            cancel();
            throw e;
        }
    }

    /**
     * The next event for a whole (non-streamed) answer: choice after choice, probing the client
     * while waiting, and without waking for every token.
     */
    Event next(ClientWatch watch) throws InterruptedException, IOException {
        while (ready.isEmpty()) {
            accept(current, watch.next(generations.get(current), generations));
        }
        Event e = ready.poll();
        if (e instanceof Finished) {
            current++;
        }
        return e;
    }

    /** The next event of any choice, in the order they happen, calling {@code idle} every {@code keepAliveMillis} without one. */
    Event next(Idle idle, long keepAliveMillis) throws InterruptedException, IOException {
        if (merged == null) {
            merged = new ChoiceEvents(generations);
        }
        while (ready.isEmpty()) {
            ChoiceEvents.Event e = merged.next(keepAliveMillis);
            if (e == null) {
                idle.waiting();
            } else {
                accept(e.index(), e.event());
            }
        }
        return ready.poll();
    }

    /** Every choice collected whole. */
    List<Answer> collect(ClientWatch watch) throws InterruptedException, IOException {
        List<Answer> answers = new ArrayList<>(choices.size());
        for (int index = 0; index < choices.size(); index++) {
            StringBuilder content = new StringBuilder();
            StringBuilder reasoning = new StringBuilder();
            Map<Integer, ToolCall> calls = new TreeMap<>();
            List<TokenLogprob> logprobs = new ArrayList<>();
            while (true) {
                Event e = next(watch);
                if (e instanceof Finished f) {
                    answers.add(new Answer(content.toString(), reasoning.toString(), List.copyOf(calls.values()), logprobs, f));
                    break;
                }
                Deltas d = (Deltas) e;
                logprobs.addAll(d.logprobs());
                for (ChatDelta delta : d.deltas()) {
                    switch (delta) {
                        case ChatDelta.Content c -> content.append(c.text());
                        case ChatDelta.Reasoning r -> reasoning.append(r.text());
                        case ChatDelta.ToolCallDelta t -> calls.merge(t.index(), new ToolCall(t.id(), t.name(), t.arguments()),
                                (a, b) -> new ToolCall(a.id().isEmpty() ? b.id() : a.id(), a.name().isEmpty() ? b.name() : a.name(),
                                        a.arguments() + b.arguments()));
                    }
                }
            }
        }
        return answers;
    }

    /** Turns one engine event of choice {@code index} into the run's events. */
    private void accept(int index, GenerationEvent event) throws IOException {
        ChatGeneration g = choices.get(index);
        switch (event) {
            case GenerationEvent.PromptLogprobs p -> {
                // A chat never asks to score its prompt.
            }
            case GenerationEvent.Text t -> ready.add(deltas(index, g.parser().feed(t.text()), t.logprobs()));
            case GenerationEvent.Failed f -> {
                cancel();
                throw ApiError.failure(f.error());
            }
            case GenerationEvent.Done d -> {
                metrics.generation(entry.id(), d.timings());
                if (d.reason() == FinishReason.CANCELLED) {
                    cancel();
                    throw new EofException("client went away");
                }
                List<ChatDelta> rest = g.parser().finish();
                if (!rest.isEmpty()) {
                    ready.add(deltas(index, rest, List.of()));
                }
                promptTokens = d.timings().promptTokens();
                cachedTokens = Math.max(cachedTokens, d.timings().cachedTokens());
                completionTokens += d.timings().completionTokens();
                // Only the client's own stop strings count: the template's end-of-turn texts end a turn.
                String stop = request.stops().contains(d.stopSequence()) ? d.stopSequence() : "";
                ready.add(new Finished(index, d.reason(), d.timings(), stop, toolCalls[index]));
            }
        }
    }

    private Deltas deltas(int index, List<ChatDelta> deltas, List<TokenLogprob> logprobs) {
        for (ChatDelta d : deltas) {
            toolCalls[index] |= d instanceof ChatDelta.ToolCallDelta;
        }
        return new Deltas(index, deltas, logprobs);
    }
}
