package forge.http.server;

import forge.api.sampler.SamplingParams;
import forge.runtime.engine.FinishReason;
import forge.runtime.engine.Generation;
import forge.runtime.engine.GenerationEvent;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The run core of every generating door: the sequences of one request, submitted together
 * ({@code n} choices for each of its prompts, a fixed seed giving each choice its own stream),
 * the client's departure wired to cancel them all, the response's headers (the parameters without
 * effect, the effective {@code max_tokens}), their events read whole or streamed with keep-alives,
 * metrics and usage kept, and the request ended the way its failure says. Chat's doors read the
 * events through {@link ChatRun}, which parses them with the template; completions read them as
 * they are.
 *
 * <p>What the engine reports as a failure comes out as an exception once every sequence is
 * cancelled: a failed generation as an {@link ApiError} (a door already streaming writes it as its
 * own error event), a cancelled one (the client is gone) as an {@link EofException}.
 * {@link #drive} turns them into the request's end.
 */
final class Run {

    /** Submits one sequence of the request. */
    interface Choice {
        /**
         * @param sequence the sequence's id: the run's, suffixed {@code -k} when it has several
         * @param prompt   the index of the prompt it answers
         * @param sampling the request's sampling, its seed this choice's own
         */
        Generation submit(String sequence, int prompt, SamplingParams sampling);
    }

    /** What a streaming door does while no event comes: a keep-alive in its own wire format. */
    interface Idle {
        void waiting() throws IOException;
    }

    /** A door's response body, which may fail the ways a run does. */
    interface Body {
        void write() throws IOException, InterruptedException;
    }

    /** Token counts as OpenAI counts them: each prompt once, every choice's completion. */
    record Usage(int promptTokens, int cachedTokens, int completionTokens) {}

    private final String id;
    private final String model;
    private final List<Generation> sequences;
    private final int n;
    private final ForgeMetrics metrics;
    private final int[] promptTokens;
    private final int[] cachedTokens;
    /** The sequences their door ended itself ({@link #stop}): their cancellation is their finish. */
    private final boolean[] stopped;

    private int completionTokens;
    private ChoiceEvents merged;
    /** Probes a streaming client between events: a write finds a closed connection only a token or two late. */
    private final ClientWatch watch;

    private int current;

    private Run(
            String id,
            String model,
            List<Generation> sequences,
            int prompts,
            int n,
            ForgeMetrics metrics,
            ClientWatch watch) {
        this.watch = watch;
        this.id = id;
        this.model = model;
        this.sequences = sequences;
        this.n = n;
        this.metrics = metrics;
        this.promptTokens = new int[prompts];
        this.cachedTokens = new int[prompts];
        this.stopped = new boolean[sequences.size()];
    }

    /**
     * Submits {@code n} choices of each of {@code prompts} prompts, in order (choice {@code k}
     * answers prompt {@code k / n}); a refusal of any cancels those already submitted. Names the
     * parameters without effect and the effective {@code max_tokens} in the response's headers.
     *
     * @param id        the response's id, as the door chose it
     * @param model     the model's canonical id
     * @param maxTokens the {@code max_tokens} the run's sequences generate up to (the smallest, with several prompts)
     */
    static Run start(
            String id,
            String model,
            ForgeMetrics metrics,
            int prompts,
            int n,
            SamplingParams sampling,
            Choice choice,
            Set<String> ignored,
            int maxTokens,
            Request request,
            Response response) {
        List<Generation> sequences = new ArrayList<>(prompts * n);
        try {
            for (int k = 0; k < prompts * n; k++) {
                SamplingParams own = sampling.seed() >= 0 && k % n > 0
                        ? sampling.toBuilder().seed(sampling.seed() + k % n).build()
                        : sampling;
                sequences.add(choice.submit(prompts * n == 1 ? id : id + "-" + k, k / n, own));
            }
        } catch (RuntimeException e) {
            sequences.forEach(Generation::cancel);
            throw e;
        }
        // A client that goes away cancels its sequences; the engine frees the slots at its next step.
        request.addFailureListener(failure -> sequences.forEach(Generation::cancel));
        if (!ignored.isEmpty()) {
            response.getHeaders().put("X-Forge-Ignored-Params", String.join(", ", ignored));
        }
        response.getHeaders().put(ContextFit.HEADER, String.valueOf(maxTokens));
        return new Run(id, model, List.copyOf(sequences), prompts, n, metrics, new ClientWatch(request, response));
    }

    String id() {
        return id;
    }

    /** The model's canonical id. */
    String model() {
        return model;
    }

    /** How many sequences run. */
    int size() {
        return sequences.size();
    }

    /** The usage so far: complete once every sequence finished. */
    Usage usage() {
        int prompt = 0;
        int cached = 0;
        for (int p = 0; p < promptTokens.length; p++) {
            prompt += promptTokens[p];
            cached += cachedTokens[p];
        }
        return new Usage(prompt, cached, completionTokens);
    }

    /**
     * Ends sequence {@code index} because its door's own limit says so (a time or indentation limit
     * checked on the text): the engine stops it at its next step, the text it still sends is the
     * door's to drop, and it finishes with {@link FinishReason#LENGTH} instead of failing the run
     * the way a departed client's cancellation does.
     */
    void stop(int index) {
        stopped[index] = true;
        sequences.get(index).cancel();
    }

    /** Cancels every sequence; the engine frees their slots at its next step. */
    void cancel() {
        sequences.forEach(Generation::cancel);
    }

    /**
     * Writes a door's response, ending the request the way its failure says: a client gone or an
     * interrupt fails the callback; any other exception is for the router, which answers it (or,
     * past the status line, ends the connection). Every sequence is cancelled on the way out.
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
     * The next event for a whole (non-streamed) answer: sequence after sequence, probing the client
     * while waiting, and without waking for every token.
     */
    ChoiceEvents.Event next(ClientWatch watch) throws InterruptedException, IOException {
        int index = current;
        GenerationEvent e = accept(index, watch.next(sequences.get(index), sequences));
        if (e instanceof GenerationEvent.Done) {
            current++;
        }
        return new ChoiceEvents.Event(index, e);
    }

    /**
     * The next event of any sequence, in the order they happen, calling {@code idle} every
     * {@code keepAliveMillis} without one. Before each event the connection is probed
     * ({@link ClientWatch#gone}, a non-blocking read): a client that closed it, as an editor does to
     * cancel a keystroke's completion, cancels the run at once instead of at the write that fails
     * after the one the kernel still accepted.
     */
    ChoiceEvents.Event next(Idle idle, long keepAliveMillis) throws InterruptedException, IOException {
        if (merged == null) {
            merged = new ChoiceEvents(sequences);
        }
        while (true) {
            ChoiceEvents.Event e = merged.next(keepAliveMillis);
            if (watch.gone()) {
                cancel();
                throw new EofException("client went away");
            }
            if (e == null) {
                idle.waiting();
            } else {
                return new ChoiceEvents.Event(e.index(), accept(e.index(), e.event()));
            }
        }
    }

    /** Keeps metrics and usage of a finished sequence; a failed or cancelled one ends the run. */
    private GenerationEvent accept(int index, GenerationEvent event) throws IOException {
        if (event instanceof GenerationEvent.Failed f) {
            cancel();
            throw ApiError.failure(f.error());
        }
        if (event instanceof GenerationEvent.Done d) {
            metrics.generation(model, d.timings());
            if (d.reason() == FinishReason.CANCELLED && stopped[index]) {
                event = new GenerationEvent.Done(FinishReason.LENGTH, d.timings(), "");
            } else if (d.reason() == FinishReason.CANCELLED) {
                cancel();
                throw new EofException("client went away");
            }
            // The choices of one prompt read it once: usage counts it once, its cached part the most any reused.
            int prompt = index / n;
            promptTokens[prompt] = d.timings().promptTokens();
            cachedTokens[prompt] = Math.max(cachedTokens[prompt], d.timings().cachedTokens());
            completionTokens += d.timings().completionTokens();
        }
        return event;
    }
}
