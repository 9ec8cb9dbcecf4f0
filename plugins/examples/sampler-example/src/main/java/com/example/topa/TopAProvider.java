package com.example.topa;

import forge.api.sampler.SamplerProvider;
import forge.api.sampler.SamplerStage;
import forge.api.sampler.StageArguments;
import forge.api.sampler.StageInfo;
import forge.api.sampler.StageParameter;
import forge.api.sampler.TokenCandidates;
import java.util.List;

/**
 * Contributes {@code top_a}. The provider is stateless and cheap; {@link #create} makes one
 * stage per sequence, which the engine calls on its own thread alone.
 */
public final class TopAProvider implements SamplerProvider {

    @Override
    public List<StageInfo> stages() {
        // Parameters are request fields named <stage>_<what>; the host checks type and range.
        return List.of(new StageInfo(
                "top_a",
                "drops tokens below a times the top probability squared",
                List.of(StageParameter.number("top_a_a", 0.2, 0, 1, "the factor a; 0 keeps every token"))));
    }

    @Override
    public SamplerStage create(String stage, StageArguments arguments) {
        return new TopA((float) arguments.number("top_a_a"));
    }

    /** One sequence's stage: it keeps no history, so {@code accept} and {@code reset} are the defaults. */
    static final class TopA implements SamplerStage {
        private final float a;

        TopA(float a) {
            this.a = a;
        }

        @Override
        public void apply(TokenCandidates c) {
            int size = c.size();
            if (a == 0 || size < 2) {
                return;
            }
            float max = Float.NEGATIVE_INFINITY;
            for (int i = 0; i < size; i++) {
                max = Math.max(max, c.logit(i));
            }
            if (max == Float.NEGATIVE_INFINITY) {
                return; // everything banned already: not ours to decide
            }
            double sum = 0;
            for (int i = 0; i < size; i++) {
                sum += Math.exp(c.logit(i) - max);
            }
            double top = 1 / sum; // the top token's probability
            // p_i < a * top^2  <=>  logit_i - max < log(a * top)
            double cut = Math.log(a * top);
            for (int i = 0; i < size; i++) {
                if (c.logit(i) - max < cut) {
                    c.ban(i); // the top token itself is never below the cut: something is always left
                }
            }
        }
    }
}
