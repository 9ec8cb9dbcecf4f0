package forge.runtime.engine;

import forge.api.backend.ContextParams;
import forge.api.backend.InferenceContext;
import forge.api.backend.LoadedModel;
import forge.api.backend.ModelInfo;
import forge.api.backend.Vocabulary;
import java.util.Optional;
import java.util.function.Function;

/**
 * A loaded model for engine tests: the {@link FakeVocabulary}, and contexts made by a test's function.
 * Public for the catalog's tests, which serve it through {@link #plain()}.
 */
public final class FakeModel implements LoadedModel {

    private final Vocabulary vocabulary = new FakeVocabulary();
    private final Function<ContextParams, InferenceContext> contexts;
    /** The parameters of the last context created. */
    volatile ContextParams params;

    FakeModel(Function<ContextParams, InferenceContext> contexts) {
        this.contexts = contexts;
    }

    /** A model whose contexts are {@link FakeContext}s of the size asked: no natives, for tests of what serves a model. */
    public static FakeModel plain() {
        return of(c -> {});
    }

    /** A model whose contexts are {@link FakeContext}s of the size asked; {@code created} receives each. */
    static FakeModel of(java.util.function.Consumer<FakeContext> created) {
        return new FakeModel(p -> {
            FakeContext c = new FakeContext(p.contextSize(), p.seqMax(), p.batchSize(), p.kvUnified());
            created.accept(c);
            return c;
        });
    }

    @Override
    public ModelInfo info() {
        return new ModelInfo("fake", "fake", 4096, 8, 1, 0, 0, Optional.empty());
    }

    @Override
    public Vocabulary vocabulary() {
        return vocabulary;
    }

    @Override
    public InferenceContext newContext(ContextParams p) {
        params = p;
        return contexts.apply(p);
    }

    @Override
    public void close() {}
}
