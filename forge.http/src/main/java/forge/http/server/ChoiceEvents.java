package forge.http.server;

import forge.runtime.engine.Generation;
import forge.runtime.engine.GenerationEvent;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The events of several choices merged into one queue, in the order they happen, so a stream
 * can interleave them. One choice needs no merging: its own queue is read directly. For more,
 * a virtual thread per choice forwards its events; each stops after its choice's last event.
 */
final class ChoiceEvents {

    /** One event of the choice at {@code index}. */
    record Event(int index, GenerationEvent event) {}

    private final List<Generation> choices;
    private final BlockingQueue<Event> merged = new LinkedBlockingQueue<>();

    ChoiceEvents(List<Generation> choices) {
        this.choices = choices;
        if (choices.size() > 1) {
            for (int i = 0; i < choices.size(); i++) {
                int index = i;
                Thread.ofVirtual().name("forge-choice-" + i).start(() -> forward(index));
            }
        }
    }

    private void forward(int index) {
        try {
            while (true) {
                GenerationEvent e = choices.get(index).next();
                merged.add(new Event(index, e));
                if (e instanceof GenerationEvent.Done || e instanceof GenerationEvent.Failed) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The next event of any choice, or null after {@code timeoutMillis} without one. */
    Event next(long timeoutMillis) throws InterruptedException {
        if (choices.size() == 1) {
            GenerationEvent e = choices.getFirst().next(timeoutMillis, TimeUnit.MILLISECONDS);
            return e == null ? null : new Event(0, e);
        }
        return merged.poll(timeoutMillis, TimeUnit.MILLISECONDS);
    }
}
