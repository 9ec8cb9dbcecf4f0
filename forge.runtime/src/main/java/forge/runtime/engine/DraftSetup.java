package forge.runtime.engine;

import forge.api.backend.LoadedModel;
import java.util.Objects;

/**
 * What an engine drafts with besides its {@link EngineConfig#speculation()}: a draft model
 * ({@code --model-draft}), whose vocabulary must be compatible with the target's, and, for
 * benchmarks only, synthetic acceptance ({@code --spec-synth-len} / {@code --spec-synth-rates}).
 *
 * @param model     the draft model, or null for none; the engine owns it from then on and closes it
 *                  when it stops (or when it refuses it)
 * @param synthetic {@link SyntheticAcceptance#OFF} outside benchmarks
 */
public record DraftSetup(LoadedModel model, SyntheticAcceptance synthetic) {

    /** No draft model, real verification. */
    public static final DraftSetup NONE = new DraftSetup(null, SyntheticAcceptance.OFF);

    public DraftSetup {
        Objects.requireNonNull(synthetic, "synthetic");
    }
}
