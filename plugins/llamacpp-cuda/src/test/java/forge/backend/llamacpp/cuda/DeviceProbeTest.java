package forge.backend.llamacpp.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeviceProbeTest {

    @Test
    void readsTheChildsLinesBack() {
        DeviceProbe.Result r = DeviceProbe.parse("driver 13000\ndevice 0\tNVIDIA H200\t150000000000\t149000000000\n");
        assertTrue(r.ok());
        assertEquals(13000, r.driverVersion());
        assertEquals(List.of(new DeviceProbe.Gpu(0, "NVIDIA H200", 150_000_000_000L, 149_000_000_000L)), r.gpus());
        DeviceProbe.Result none = DeviceProbe.parse("error cuInit 100 CUDA_ERROR_NO_DEVICE\n");
        assertFalse(none.ok());
        assertEquals("cuInit 100 CUDA_ERROR_NO_DEVICE", none.error());
        assertEquals(
                "the driver reports no CUDA device",
                DeviceProbe.parse("driver 13000\n").error());
        // A JVM warning beside the child's own lines changes nothing; alone, it is the reason.
        assertTrue(DeviceProbe.parse("WARNING: Unknown module: forge.runtime\ndriver 13000\ndevice 0\tH200\t2\t1\n")
                .ok());
        assertEquals(
                "the device probe failed: Error: Could not find or load main class X",
                DeviceProbe.parse("Error: Could not find or load main class X\n")
                        .error());
    }

    @Test
    void theChildReportsADriverItCannotLoadInsteadOfFailing(@TempDir Path dir) throws Exception {
        // The real child JVM, over a file that is no library: its answer names the file and the cause.
        Path fake = Files.writeString(dir.resolve("libcuda.so.1"), "not a library");
        DeviceProbe.Result r = DeviceProbe.run(fake, CudaProvider.codeLocation().orElseThrow(), 60);
        assertFalse(r.ok());
        assertTrue(r.error().contains("cannot load " + fake), r.error());
    }
}
