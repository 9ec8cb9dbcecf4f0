package forge.runtime.engine;

import forge.api.backend.MediaTokens;
import forge.api.template.ChatImage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test double of a backend's {@link MediaTokens}: text ids and images (named by the hash of a
 * seed's bytes) laid out as a projector would, each image a run of placeholders, with a count of
 * the references held.
 */
final class FakeMedia implements MediaTokens {

    private final int[] tokens;
    private final List<Span> spans;
    final AtomicInteger holders = new AtomicInteger(1);

    private FakeMedia(int[] tokens, List<Span> spans) {
        this.tokens = tokens;
        this.spans = List.copyOf(spans);
    }

    /**
     * An image of {@code embeddings} embeddings that advances the position by {@code positions}
     * (fewer than its embeddings as an M-RoPE projector places it), named by the hash of {@code seed}.
     */
    record Image(String seed, int embeddings, int positions) {
        /** An image of one position per embedding. */
        Image(String seed, int embeddings) {
            this(seed, embeddings, embeddings);
        }
    }

    /** The prompt of {@code parts}: {@code int[]} text ids and {@link Image}s, in order. */
    static FakeMedia of(Object... parts) {
        List<Integer> out = new ArrayList<>();
        List<Span> spans = new ArrayList<>();
        for (Object part : parts) {
            switch (part) {
                case int[] ids -> {
                    for (int id : ids) {
                        out.add(id);
                    }
                }
                case Image image -> {
                    String id = ChatImage.sha256(image.seed().getBytes());
                    spans.add(new Span(id, out.size(), image.embeddings(), false, image.positions()));
                    for (int j = 0; j < image.embeddings(); j++) {
                        out.add(MediaTokens.placeholder(id, j));
                    }
                }
                default -> throw new IllegalArgumentException(String.valueOf(part));
            }
        }
        return new FakeMedia(out.stream().mapToInt(Integer::intValue).toArray(), spans);
    }

    @Override
    public int[] tokens() {
        return tokens.clone();
    }

    @Override
    public List<Span> media() {
        return spans;
    }

    @Override
    public FakeMedia retain() {
        holders.incrementAndGet();
        return this;
    }

    @Override
    public void close() {
        holders.decrementAndGet();
    }
}
