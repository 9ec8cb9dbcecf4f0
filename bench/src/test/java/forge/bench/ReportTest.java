package forge.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ReportTest {

    @Test
    void metricLines() {
        assertEquals(Optional.of("METRIC forge.seed.p95_ms=941.252"), Report.metric("forge.seed.p95_ms", 941.2519));
        assertEquals(Optional.of("METRIC peer.seed.success_count=30"), Report.metric("peer.seed.success_count", 30));
        assertEquals(Optional.of("METRIC forge.rss.overhead_mb=-12.5"), Report.metric("forge.rss.overhead_mb", -12.5));
        assertEquals(Optional.of("METRIC x.y=0"), Report.metric("x.y", 0.0001));
    }

    @Test
    void ratioIsFirstOverSecond() {
        assertEquals(Optional.of("RATIO seed.p95_ms=0.5"), Report.ratio("seed.p95_ms", 50, 100));
        assertEquals(Optional.of("RATIO conc4.agg_tps=1.333"), Report.ratio("conc4.agg_tps", 4, 3));
        assertEquals(Optional.empty(), Report.ratio("seed.p95_ms", 1, 0));
        assertEquals(Optional.empty(), Report.ratio("seed.p95_ms", Double.NaN, 1));
    }

    @Test
    void formatHasNoExponentNoTrailingZeros() {
        assertEquals("1234567.891", Report.format(1234567.8912));
        assertEquals("120", Report.format(120.0));
        assertEquals("1200000000", Report.format(1.2e9));
        assertEquals("0.001", Report.format(0.0012));
        assertThrows(IllegalArgumentException.class, () -> Report.format(Double.POSITIVE_INFINITY));
    }

    @Test
    void namesAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> Report.metric("Forge.seed", 1));
        assertThrows(IllegalArgumentException.class, () -> Report.metric("forge seed", 1));
        assertThrows(IllegalArgumentException.class, () -> Report.metric("forge.", 1));
    }

    @Test
    void printsOnlyDefinedValues() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Report report = new Report(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        report.metricOut("forge.seed.p50_ms", 10);
        report.metricOut("forge.seed.p95_ms", Double.NaN);
        report.ratioOut("seed.p50_ms", 10, 20);
        report.ratioOut("seed.p95_ms", 10, 0);
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(
                "METRIC forge.seed.p50_ms=10" + System.lineSeparator() + "RATIO seed.p50_ms=0.5"
                        + System.lineSeparator(),
                out);
        assertTrue(Summary.parse("METRIC forge.seed.p50_ms=10").isPresent());
    }
}
