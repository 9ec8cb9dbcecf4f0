package forge.template.jinja;

/**
 * Bounds on one render, each checked before the work or allocation it would allow, so a hostile
 * template (from a GGUF file anyone can write) fails fast with a clear error instead of
 * exhausting the heap or a thread: {@code {{ 'x' * 2000000000 }}} is refused before the string
 * exists, a list doubled forty times before the heap fills.
 *
 * @param maxOutput     characters of output, and of any captured block or macro output
 * @param maxSteps      loop iterations and macro calls together
 * @param maxDepth      macro calls nested in one another (Python's recursion limit stops Jinja2 not far beyond)
 * @param maxValue      characters of one string or items of one list a template builds
 * @param maxAllocation characters and items built in all, over the render
 */
public record Limits(long maxOutput, long maxSteps, int maxDepth, long maxValue, long maxAllocation) {

    /** Far above what any official chat template needs for a long conversation, far below harm. */
    public static final Limits DEFAULT = new Limits(16L << 20, 1_000_000, 100, 16L << 20, 256L << 20);

    public Limits {
        if (maxOutput < 1 || maxSteps < 1 || maxDepth < 1 || maxValue < 1 || maxAllocation < 1) {
            throw new IllegalArgumentException("every limit must be positive");
        }
    }
}
