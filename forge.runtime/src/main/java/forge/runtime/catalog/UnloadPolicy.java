package forge.runtime.catalog;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Which loaded models unload, and when: pure logic over plain values, so that it is tested
 * without llama.cpp (the catalog applies its decisions).
 *
 * <ul>
 * <li>{@link #expired}: idle models whose keep-alive has run out;</li>
 * <li>{@link #toMakeRoom}: before a load, the least recently used idle models, until the count
 *     ({@code maxModels}) and the memory ({@code memoryBytes}) would hold the new one.</li>
 * </ul>
 * A model in use ({@code users > 0}) is never chosen.
 *
 * @param maxModels   most models loaded at once; 0 for no limit
 * @param memoryBytes most bytes the loaded models may take together; 0 or less for no limit
 */
public record UnloadPolicy(int maxModels, long memoryBytes) {

    /** No limit of count or memory. */
    public static final UnloadPolicy UNLIMITED = new UnloadPolicy(0, 0);

    public UnloadPolicy {
        if (maxModels < 0) {
            throw new IllegalArgumentException("--models-max: at least 1 (or 0 for no limit), got " + maxModels);
        }
    }

    /**
     * A loaded model as the policy sees it.
     *
     * @param id        its id
     * @param bytes     what it takes in memory (its files, plus its KV cache once known)
     * @param lastUsed  when a request last used it ({@link System#nanoTime()} scale)
     * @param users     the requests using it now
     * @param expiresAt when it unloads if idle ({@link System#nanoTime()} scale); {@link Long#MAX_VALUE} for never
     */
    public record Resident(String id, long bytes, long lastUsed, int users, long expiresAt) {
        public Resident {
            Objects.requireNonNull(id);
        }
    }

    /** The idle models whose keep-alive has run out at {@code now}. */
    public List<String> expired(List<Resident> loaded, long now) {
        return loaded.stream()
                .filter(r -> r.users() == 0 && r.expiresAt() != Long.MAX_VALUE && r.expiresAt() - now <= 0)
                .map(Resident::id)
                .toList();
    }

    /**
     * The models to unload, least recently used first, so that one of {@code incomingBytes} fits
     * beside what stays. When the models in use alone exceed the limits, the idle ones are all
     * chosen and the load goes ahead beyond them (one model must be able to run, whatever its size).
     */
    public List<String> toMakeRoom(List<Resident> loaded, long incomingBytes) {
        List<Resident> lru = loaded.stream()
                .filter(r -> r.users() == 0)
                .sorted(Comparator.comparingLong(Resident::lastUsed))
                .toList();
        int count = loaded.size();
        long bytes = loaded.stream().mapToLong(Resident::bytes).sum();
        List<String> out = new ArrayList<>();
        for (Resident r : lru) {
            boolean tooMany = maxModels > 0 && count + 1 > maxModels;
            boolean tooBig = memoryBytes > 0 && bytes + incomingBytes > memoryBytes;
            if (!tooMany && !tooBig) {
                break;
            }
            out.add(r.id());
            count--;
            bytes -= r.bytes();
        }
        return out;
    }

    /**
     * The default memory budget: three quarters of the machine's RAM, leaving the rest to the
     * system, the JVM's heap and the other programs; no limit when the RAM is unknown.
     */
    public static long defaultMemory(long totalRam) {
        return totalRam > 0 ? totalRam / 4 * 3 : 0;
    }
}
