package forge.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SummaryTest {

    @Test
    void readsLinesAndJudgesTargets() {
        Summary s = Summary.of(List.of(
                "seed 3/30 forge 10 ms",
                "METRIC forge.seed.p95_ms=90",
                "RATIO seed.p95_ms=0.9",
                "RATIO conc4.agg_tps=1.05",
                "METRIC startup.diff_ms=-20.5",
                "RATIO decode_vs_llama_bench=oops"));
        assertEquals(Optional.of(90.0), s.value("METRIC forge.seed.p95_ms"));
        String table = s.table();
        assertTrue(
                table.contains("| seed p95 latency vs llama-server | `RATIO seed.p95_ms` | ≤ 0.95 | 0.9 | met |"),
                table);
        assertTrue(table.contains("| `RATIO conc4.agg_tps` | ≥ 1.1 | 1.05 | **missed** |"), table);
        assertTrue(table.contains("| `METRIC startup.diff_ms` | ≤ 300 | -20.5 | met |"), table);
        assertTrue(table.contains("| `RATIO decode_vs_llama_bench` | ≥ 0.97 | — | not measured |"), table);
        assertEquals(2 + Summary.GOALS.size(), table.strip().split("\n").length);
    }

    @Test
    void lastValueWins() {
        assertEquals(
                Optional.of(2.0), Summary.of(List.of("RATIO a=1", "RATIO a=2")).value("RATIO a"));
    }
}
