package forge.sampler.loopguard;

import forge.api.sampler.SamplerProvider;
import forge.api.sampler.SamplerStage;
import forge.api.sampler.StageArguments;
import forge.api.sampler.StageInfo;
import forge.api.sampler.StageParameter;
import java.util.List;

/** Contributes the {@code loop_guard} stage. */
public final class LoopGuardProvider implements SamplerProvider {

    static final String NAME = "loop_guard";
    static final String N = "loop_guard_n";
    static final String REPEATS = "loop_guard_repeats";
    static final String WINDOW = "loop_guard_window";

    @Override
    public List<StageInfo> stages() {
        return List.of(new StageInfo(
                NAME,
                "bans the token that would write the same n tokens a k-th time",
                List.of(
                        StageParameter.integer(N, 12, 2, 256, "the length of the runs it counts, in tokens"),
                        StageParameter.integer(REPEATS, 4, 2, 1000, "the occurrence of a run that is refused"),
                        StageParameter.integer(
                                WINDOW,
                                2048,
                                0,
                                1 << 20,
                                "how many of the last generated tokens it looks at; 0 for all"))));
    }

    @Override
    public SamplerStage create(String stage, StageArguments arguments) {
        if (!stage.equals(NAME)) {
            throw new IllegalArgumentException("no stage " + stage);
        }
        int n = (int) arguments.integer(N);
        int window = (int) arguments.integer(WINDOW);
        if (window != 0 && window < n) {
            throw new IllegalArgumentException(
                    WINDOW + " (" + window + ") must be 0 or at least " + N + " (" + n + ")");
        }
        return new LoopGuard(n, (int) arguments.integer(REPEATS), window);
    }
}
