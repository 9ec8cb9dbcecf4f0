package forge.api.sampler;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The stages llama.cpp's own chain offers, by llama-server's names. A request's {@code samplers}
 * may also spell them as llama.cpp accepts: kebab case ({@code top-k}), without the underscore
 * ({@code topk}), {@code nucleus} for top_p, {@code temp} for temperature, {@code typ} for typ_p,
 * in any case; or as one string of their letters ({@code "edkypmxt"}, llama.cpp's
 * {@code common_sampler_type_to_chr}).
 */
public enum BuiltinStage implements SamplerStep {
    /** Repetition, frequency and presence penalties (repeat_penalty, repeat_last_n, ...). */
    PENALTIES("penalties", 'e'),
    /** DRY, "don't repeat yourself" (dry_multiplier, dry_base, dry_allowed_length, ...). */
    DRY("dry", 'd'),
    /** Keep the tokens within top_n_sigma standard deviations of the top logit. */
    TOP_N_SIGMA("top_n_sigma", 's'),
    TOP_K("top_k", 'k'),
    /** Locally typical sampling (typical_p). */
    TYPICAL_P("typ_p", 'y'),
    TOP_P("top_p", 'p'),
    MIN_P("min_p", 'm'),
    /** Exclude top choices (xtc_probability, xtc_threshold). */
    XTC("xtc", 'x'),
    TEMPERATURE("temperature", 't'),
    /**
     * Mirostat, as the final draw. llama-server chooses it with the {@code mirostat} field alone
     * (1 or 2); naming it here chooses it too (version 2 unless {@code mirostat} says 1). As in
     * llama.cpp, a mirostat chain keeps only temperature of the other built-in stages.
     */
    MIROSTAT("mirostat", 'o');

    /** llama-server's default order (common.h's {@code samplers}); mirostat only by its field. */
    public static final List<SamplerStep> DEFAULT_ORDER =
            List.of(PENALTIES, DRY, TOP_N_SIGMA, TOP_K, TYPICAL_P, TOP_P, MIN_P, XTC, TEMPERATURE);

    private static final Map<String, BuiltinStage> NAMES = names();

    private final String wireName;
    private final char letter;

    BuiltinStage(String wireName, char letter) {
        this.wireName = wireName;
        this.letter = letter;
    }

    @Override
    public String toString() {
        return wireName;
    }

    /** llama-server's name of the stage, such as {@code typ_p}. */
    public String wireName() {
        return wireName;
    }

    @Override
    public String stageName() {
        return wireName;
    }

    /** The stage's letter in llama.cpp's one-string form. */
    public char letter() {
        return letter;
    }

    /** The stage a name or alias means, in any case. */
    public static Optional<BuiltinStage> byName(String name) {
        return Optional.ofNullable(NAMES.get(name.toLowerCase(Locale.ROOT)));
    }

    /** The stage a letter means. */
    public static Optional<BuiltinStage> byLetter(char letter) {
        for (BuiltinStage s : values()) {
            if (s.letter == letter) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    private static Map<String, BuiltinStage> names() {
        Map<String, BuiltinStage> names = new HashMap<>();
        for (BuiltinStage s : values()) {
            names.put(s.wireName, s);
            if (s.wireName.contains("_")) {
                names.put(s.wireName.replace('_', '-'), s);
                names.put(s.wireName.replace("_", ""), s);
            }
        }
        names.put("nucleus", TOP_P);
        names.put("temp", TEMPERATURE);
        names.put("typ", TYPICAL_P);
        return Map.copyOf(names);
    }
}
