package forge.http.server;

import forge.api.BackendException;
import forge.api.backend.AdapterScale;
import forge.api.template.ChatDelta;
import forge.api.template.ChatImage;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.ToolCall;
import forge.runtime.catalog.ChatGeneration;
import forge.runtime.catalog.ChatOptions;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.PreparedChat;
import forge.runtime.catalog.ServedModel;
import forge.runtime.engine.FinishReason;
import forge.runtime.engine.GenerationEvent;
import forge.runtime.engine.Timings;
import forge.runtime.engine.TokenLogprob;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * One chat request on the run core ({@link Run}) that every generating door shares, with what only
 * chat adds: the model resolved, the output's shape turned into a grammar, the prompt rendered
 * once and fitted to the slot ({@link ContextFit}); then each choice's engine events parsed by the
 * template into {@link ChatDelta}s. Every chatting door (OpenAI chat completions, Anthropic
 * Messages, OpenAI Responses) is a translator around it: its request into a {@link ChatRequest},
 * these events into its wire format.
 *
 * <p>Failures arrive as the run core's exceptions ({@link ApiError}, {@link EofException}), once
 * every choice is cancelled; {@link #drive} turns them into the request's end.
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
    record Deltas(int index, List<ChatDelta> deltas, List<TokenLogprob> logprobs) implements Event {}

    /**
     * Choice {@code index} ended (its last deltas came before).
     *
     * @param stopSequence the request's stop string that ended it, else empty
     * @param toolCalls    whether the choice called tools
     */
    record Finished(int index, FinishReason reason, Timings timings, String stopSequence, boolean toolCalls)
            implements Event {}

    /** A whole choice, collected. */
    record Answer(
            String content, String reasoning, List<ToolCall> toolCalls, List<TokenLogprob> logprobs, Finished finish) {}

    private final Run run;
    private final ChatRequest request;
    private final List<ChatGeneration> choices;
    private final ArrayDeque<Event> ready = new ArrayDeque<>();
    private final boolean[] toolCalls;

    private ChatRun(Run run, ChatRequest request, List<ChatGeneration> choices) {
        this.run = run;
        this.request = request;
        this.choices = choices;
        this.toolCalls = new boolean[choices.size()];
    }

    /**
     * Submits {@code req}: refusals (an unknown model, a shape that cannot be enforced, a prompt
     * that does not fit) are thrown before anything is generated or written.
     *
     * @param strict {@code --strict}: a {@code max_tokens} beyond the slot is refused, not fitted
     */
    static ChatRun start(
            RunContext context, ChatRequest req, String id, boolean strict, Request request, Response response) {
        ModelEntry entry = Requests.entry(context.catalog(), req.model());
        ServedModel model = context.catalog().serve(entry);
        List<AdapterScale> adapters = req.lora().resolve(req.model(), entry, model);
        // The output's shape becomes a grammar before anything is generated: a bad one is a 400 here.
        // Tools offered to a model whose template has no tool-call syntax: the generic format (ModelCapabilities).
        ChatTemplate template =
                ModelCapabilities.template(model.template(), req.prompt().tools(), strict);
        StructuredOutput.Applied shaped = req.structured().apply(template, req.prompt(), req.sampling());
        // A freeform tool's grammar the template cannot carry is named with the fields never read.
        SortedSet<String> ignored = new TreeSet<>(req.ignored());
        ignored.addAll(shaped.unenforced());
        Strictness.check(strict, new TreeSet<>(shaped.unenforced()));
        // Each submitted choice holds its own reference to the prompt's media; this one goes once all are.
        try (PreparedChat prepared = prepare(model, shaped.prompt(), template)) {
            ContextFit fit = ContextFit.of(
                    prepared.tokens().length,
                    req.maxTokens(),
                    model.engine().config().slotContext(),
                    strict);
            List<ChatGeneration> choices = new ArrayList<>(req.n());
            Run run = Run.start(
                    id,
                    entry.id(),
                    context.metrics(),
                    1,
                    req.n(),
                    shaped.sampling(),
                    (sequence, prompt, sampling) -> {
                        ChatGeneration choice = model.chat(
                                prepared,
                                new ChatOptions(
                                        sequence,
                                        sampling,
                                        fit.maxTokens(),
                                        req.stops(),
                                        req.ignoreEos(),
                                        req.logprobs(),
                                        req.speculation(),
                                        adapters));
                        choices.add(choice);
                        return choice.generation();
                    },
                    ignored,
                    fit.maxTokens(),
                    request,
                    response);
            return new ChatRun(run, req, List.copyOf(choices));
        }
    }

    /**
     * Renders and tokenizes {@code prompt} ({@link ServedModel#prepare}): images to a model without
     * a vision projector, or an image the projector cannot read (it does not decode, or the
     * template lost its marker), are the client's 400.
     */
    static PreparedChat prepare(ServedModel model, ChatPrompt prompt, ChatTemplate template) {
        if (prompt.images().stream().anyMatch(m -> !m.isAudio())
                && !model.model().vision()) {
            throw ApiError.badRequest(
                    "messages", "model " + model.descriptor().id() + " has no vision projector; give --mmproj");
        }
        if (prompt.images().stream().anyMatch(ChatImage::isAudio)
                && !model.model().audio()) {
            // an input_audio part (OpenAI's): only a projector with an audio encoder reads it
            throw ApiError.badRequest(
                    "messages",
                    "model " + model.descriptor().id() + " has no audio projector"
                            + (model.model().vision() ? " (its projector reads images only)" : "")
                            + "; give --mmproj with one that reads audio");
        }
        try {
            return model.prepare(prompt, template);
        } catch (BackendException e) {
            if (prompt.images().isEmpty()) {
                throw e;
            }
            throw ApiError.badRequest("messages", e.getMessage());
        }
    }

    /** The response's id, as the route chose it. */
    String id() {
        return run.id();
    }

    /** The model's canonical id. */
    String model() {
        return run.model();
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
    Run.Usage usage() {
        return run.usage();
    }

    /** As {@link Run#drive}. */
    void drive(Callback callback, Run.Body body) {
        run.drive(callback, body);
    }

    /**
     * The next event for a whole (non-streamed) answer: choice after choice, probing the client
     * while waiting, and without waking for every token.
     */
    Event next(ClientWatch watch) throws InterruptedException, IOException {
        while (ready.isEmpty()) {
            ChoiceEvents.Event e = run.next(watch);
            accept(e.index(), e.event());
        }
        return ready.poll();
    }

    /** The next event of any choice, in the order they happen, calling {@code idle} every {@code keepAliveMillis} without one. */
    Event next(Run.Idle idle, long keepAliveMillis) throws InterruptedException, IOException {
        while (ready.isEmpty()) {
            ChoiceEvents.Event e = run.next(idle, keepAliveMillis);
            accept(e.index(), e.event());
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
                    answers.add(new Answer(
                            content.toString(), reasoning.toString(), List.copyOf(calls.values()), logprobs, f));
                    break;
                }
                Deltas d = (Deltas) e;
                logprobs.addAll(d.logprobs());
                collect(d.deltas(), content, reasoning, calls);
            }
        }
        return answers;
    }

    /**
     * Adds {@code deltas} to an answer being collected whole: its content, its reasoning, and its
     * tool calls by index, each call's deltas joined into one call.
     */
    static void collect(
            List<ChatDelta> deltas, StringBuilder content, StringBuilder reasoning, Map<Integer, ToolCall> calls) {
        for (ChatDelta delta : deltas) {
            switch (delta) {
                case ChatDelta.Content c -> content.append(c.text());
                case ChatDelta.Reasoning r -> reasoning.append(r.text());
                case ChatDelta.ToolCallDelta t ->
                    calls.merge(
                            t.index(),
                            new ToolCall(t.id(), t.name(), t.arguments()),
                            (a, b) -> new ToolCall(
                                    a.id().isEmpty() ? b.id() : a.id(),
                                    a.name().isEmpty() ? b.name() : a.name(),
                                    a.arguments() + b.arguments()));
            }
        }
    }

    /** Turns one engine event of choice {@code index} (the run core has taken failures) into the run's events. */
    private void accept(int index, GenerationEvent event) {
        ChatGeneration g = choices.get(index);
        switch (event) {
            case GenerationEvent.PromptLogprobs p -> {
                // A chat never asks to score its prompt.
            }
            case GenerationEvent.Text t -> ready.add(deltas(index, g.parser().feed(t.text()), t.logprobs()));
            case GenerationEvent.Failed f -> throw new IllegalStateException("the run core ends a failed run");
            case GenerationEvent.Done d -> {
                List<ChatDelta> rest = g.parser().finish();
                if (!rest.isEmpty()) {
                    ready.add(deltas(index, rest, List.of()));
                }
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
