package forge.runtime.engine;

import forge.api.ForgeException;
import forge.api.backend.ContextParams;
import forge.api.backend.FlashAttention;
import forge.api.backend.InferenceContext;
import forge.api.backend.KvCacheType;
import forge.api.backend.LoadedModel;
import forge.api.backend.TokenBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;

/**
 * Pooled embeddings of a loaded model, from a context of its own created with embeddings on.
 * It shares the weights with the model's {@link Engine} but not its KV cache, so embedding
 * requests never take a chat slot. A reranker's context pools with its rank head: {@link #rank}
 * reads the scores. Like the engine, one platform thread owns the context: the
 * native calls never run on a request's virtual thread. Inputs are embedded one after another.
 */
public final class Embedder implements AutoCloseable {

    private final LoadedModel model;
    private final int maxTokens;
    private final int threads;
    private final ExecutorService thread;
    private InferenceContext context; // embedder thread only
    private ComputeGate.Entry gate; // counted by the compute gate while the context lives
    /** Why inputs are refused from now on (the model's file changed under its mapping); null while it embeds. */
    private volatile String halted;

    /**
     * @param maxTokens the longest input, in tokens: the context and batch are this big, so an
     *                  input is always decoded in one batch (pooling sees all of it)
     */
    public Embedder(String name, LoadedModel model, int maxTokens, int threads) {
        this.model = model;
        this.maxTokens = maxTokens;
        this.threads = threads;
        this.thread = Executors.newSingleThreadExecutor(
                Thread.ofPlatform().name("forge-embed-" + name).daemon(true).factory());
    }

    /** The longest input accepted, in tokens. */
    public int maxTokens() {
        return maxTokens;
    }

    /**
     * Embeds each token sequence; each result is L2-normalized, as OpenAI's embeddings are.
     *
     * @throws EngineException CONTEXT_LENGTH_EXCEEDED for an input longer than {@link #maxTokens()}
     */
    public List<float[]> embed(List<int[]> inputs) {
        List<float[]> out = pooled(inputs);
        out.forEach(Embedder::normalize);
        return out;
    }

    /**
     * The relevance score of each input by a reranker's classification head (rank pooling): the
     * first output of the head, as it comes (not normalized), as llama-server's {@code /rerank}
     * reads it.
     *
     * @throws EngineException CONTEXT_LENGTH_EXCEEDED for an input longer than {@link #maxTokens()}
     */
    public float[] rank(List<int[]> inputs) {
        List<float[]> pooled = pooled(inputs);
        float[] scores = new float[pooled.size()];
        for (int i = 0; i < scores.length; i++) {
            if (pooled.get(i).length == 0) {
                throw new ForgeException("the model's rank head gave no score");
            }
            scores[i] = pooled.get(i)[0];
        }
        return scores;
    }

    /** Each input decoded alone, its pooled output as the backend gives it. */
    private List<float[]> pooled(List<int[]> inputs) {
        for (int[] input : inputs) {
            if (input.length == 0) {
                throw new IllegalArgumentException("an input has no tokens");
            }
            if (input.length > maxTokens) {
                throw new EngineException(
                        EngineException.Code.CONTEXT_LENGTH_EXCEEDED,
                        "an input has " + input.length + " tokens; embeddings take at most " + maxTokens);
            }
        }
        Future<List<float[]>> result = thread.submit(() -> run(inputs));
        try {
            return result.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ForgeException f) {
                throw f;
            }
            throw new ForgeException("embedding failed: " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            result.cancel(false);
            Thread.currentThread().interrupt();
            throw new EngineException(EngineException.Code.UNAVAILABLE, "interrupted while embedding");
        }
    }

    private List<float[]> run(List<int[]> inputs) {
        if (context == null) {
            context = model.newContext(new ContextParams(
                    maxTokens,
                    maxTokens,
                    maxTokens,
                    1,
                    threads,
                    threads,
                    FlashAttention.AUTO,
                    KvCacheType.F16,
                    true,
                    true));
            gate = ComputeGate.PROCESS.enter(threads);
        }
        List<float[]> out = new ArrayList<>(inputs.size());
        try {
            for (int[] input : inputs) {
                String why = halted;
                if (why != null) {
                    throw new EngineException(EngineException.Code.UNAVAILABLE, why);
                }
                context.clearMemory();
                TokenBatch batch = context.batch();
                batch.clear();
                for (int i = 0; i < input.length; i++) {
                    batch.add(input[i], i, 0, true);
                }
                ComputeGate.PROCESS.decode(context);
                out.add(context.embedding(0));
            }
        } finally {
            // Until the next request, the context's CPU threads sleep instead of polling.
            context.idle();
        }
        return out;
    }

    private static void normalize(float[] v) {
        double sum = 0;
        for (float x : v) {
            sum += (double) x * x;
        }
        if (sum > 0) {
            float scale = (float) (1 / Math.sqrt(sum));
            for (int i = 0; i < v.length; i++) {
                v[i] *= scale;
            }
        }
    }

    /**
     * Refuses every input not yet decoded, with {@code why} (503): the model's weights must not be
     * read again. Returns once no decode runs, the one running now being done.
     */
    public void halt(String why) {
        halted = Objects.requireNonNull(why);
        try {
            thread.submit(() -> {}).get(); // after every task queued before it, each refused at its next input
        } catch (ExecutionException | RejectedExecutionException e) {
            // closed already: nothing decodes
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Frees the context on its own thread, then stops the thread. */
    @Override
    public void close() {
        try {
            thread.submit(() -> {
                        if (context != null) {
                            context.close();
                            context = null;
                            gate.close();
                        }
                    })
                    .get();
        } catch (ExecutionException | RejectedExecutionException e) {
            // Already closed, or the close itself failed: nothing more to free here.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        thread.shutdown();
    }
}
