package com.example.topa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.sampler.StageArguments;
import forge.api.sampler.TokenCandidates;
import forge.runtime.plugin.PluginCheck;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopAProviderTest {

    /** Candidates with these logits, token ids 0.. */
    private static float[] apply(double a, float... logits) {
        new TopAProvider()
                .create("top_a", new StageArguments(Map.of("top_a_a", a)))
                .apply(TokenCandidates.over(logits));
        return logits;
    }

    @Test
    void cutsAConfidentDistributionAndSparesAFlatOne() {
        // p ≈ 0.84, 0.11, 0.04, 0.01: a = 0.2 keeps p >= 0.2 * 0.84^2 ≈ 0.14, the top token alone.
        float[] confident = apply(0.2, 4, 2, 1, -0.5f);
        assertEquals(4f, confident[0]);
        for (int i = 1; i < 4; i++) {
            assertEquals(Float.NEGATIVE_INFINITY, confident[i]);
        }
        // Four equal tokens: p = 0.25 each, 0.2 * 0.0625 is far below: all kept.
        float[] flat = apply(0.2, 1, 1, 1, 1);
        for (float f : flat) {
            assertEquals(1f, f);
        }
        assertEquals(2f, apply(0, 4, 2)[1], "a = 0 keeps everything");
    }

    /** The plugin as a user installs it: a jar in a plugins folder, loaded by the runtime's registry. */
    @Test
    void loadsFromAFolderAsADroppedInJar(@TempDir Path work) throws Exception {
        String out = PluginCheck.forkModuleBuild(work, "top-a.jar", "com.example.topa");
        assertTrue(out.contains("stage top_a (com.example.topa) [top_a_a=0.2]"), out);
    }
}
