package forge.api.sampler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class TokenCandidatesTest {

    @Test
    void aViewOverAnArrayIsTokenIByIndexAndWritesThrough() {
        float[] logits = {0.5f, -1f, 2f};
        TokenCandidates c = TokenCandidates.over(logits);
        assertEquals(3, c.size());
        assertEquals(2, c.token(2));
        assertEquals(-1f, c.logit(1));
        c.ban(0);
        c.logit(2, 3f);
        assertArrayEquals(new float[] {Float.NEGATIVE_INFINITY, -1f, 3f}, logits);
    }

    @Test
    void aViewRefusesWhatNoLaterStageCouldSampleFrom() {
        TokenCandidates c = TokenCandidates.over(new float[2]);
        assertThrows(IllegalArgumentException.class, () -> c.logit(0, Float.NaN));
        assertThrows(IllegalArgumentException.class, () -> c.logit(1, Float.POSITIVE_INFINITY));
    }
}
