package forge.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class FlatnessTest {

    private static ProcSample at(int minute, long rssMib, int fds, int threads) {
        return new ProcSample(minute, minute * 100L, rssMib * 1024, fds, threads);
    }

    @Test
    void theFirstMinuteIsWarmUpAndTheRestMayWanderWithinTheSlack() {
        // minute 0 to 1 grows a lot (warm-up); after it, +4% RSS, +6 files for 6 clients, +3 threads
        List<ProcSample> samples =
                List.of(at(0, 200, 40, 30), at(1, 400, 50, 40), at(2, 410, 44, 41), at(3, 416, 56, 43));
        assertEquals(List.of(), Flatness.problems(samples, 6));
    }

    @Test
    void growthBeyondTheSlackIsNotFlat() {
        List<String> problems =
                Flatness.problems(List.of(at(0, 100, 10, 10), at(1, 400, 50, 40), at(5, 430, 65, 49)), 6);
        assertEquals(3, problems.size(), problems.toString());
        assertTrue(
                problems.get(0).startsWith("RSS grew from 400.0 MiB at minute 1 to 430.0 MiB at minute 5"),
                problems.get(0));
        assertTrue(problems.get(1).contains("open files grew from 50 at minute 1 to 65"), problems.get(1));
        assertTrue(problems.get(2).contains("threads grew from 40 at minute 1 to 49"), problems.get(2));
    }

    @Test
    void aSoakWithoutASampleAfterTheWarmUpCannotBeJudged() {
        assertEquals(
                1,
                Flatness.problems(List.of(at(0, 100, 10, 10), at(1, 100, 10, 10)), 1)
                        .size());
        assertEquals(1, Flatness.problems(List.of(), 1).size());
    }
}
