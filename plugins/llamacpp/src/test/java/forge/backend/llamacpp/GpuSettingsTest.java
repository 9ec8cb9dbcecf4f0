package forge.backend.llamacpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.BackendException;
import forge.api.backend.BackendContext;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class GpuSettingsTest {

    private static GpuSettings of(Map<String, String> settings) {
        return GpuSettings.from(new BackendContext(Path.of("."), settings));
    }

    @Test
    void withoutFlagsEveryLayerThatFitsSplitByLayer() {
        assertEquals(GpuSettings.DEFAULTS, of(Map.of()));
    }

    @Test
    void llamaServersSpellings() {
        GpuSettings s = of(Map.of(
                BackendContext.GPU_LAYERS,
                "20",
                BackendContext.MAIN_GPU,
                "1",
                BackendContext.SPLIT_MODE,
                "row",
                BackendContext.TENSOR_SPLIT,
                "3,1",
                BackendContext.DEVICES,
                "CUDA0,CUDA1"));
        assertEquals(OptionalInt.of(20), s.layers());
        assertEquals(1, s.mainGpu());
        assertEquals(GpuSettings.SPLIT_ROW, s.splitMode());
        assertEquals(List.of(3f, 1f), s.tensorSplit());
        assertEquals(List.of("CUDA0", "CUDA1"), s.devices());
        assertEquals(5, s.given().size());
        assertTrue(of(Map.of(BackendContext.GPU_LAYERS, "all")).all());
        assertTrue(of(Map.of(BackendContext.GPU_LAYERS, "-1")).all());
        assertEquals(
                OptionalInt.empty(),
                of(Map.of(BackendContext.GPU_LAYERS, "auto")).layers());
        assertTrue(of(Map.of(BackendContext.DEVICES, "none")).noDevices());
    }

    @Test
    void aBadValueNamesItsFlag() {
        for (var bad : List.of(
                Map.of(BackendContext.GPU_LAYERS, "many"),
                Map.of(BackendContext.MAIN_GPU, "-2"),
                Map.of(BackendContext.SPLIT_MODE, "tensor"),
                Map.of(BackendContext.TENSOR_SPLIT, "3,x"),
                Map.of(BackendContext.DEVICES, "none,CUDA0"))) {
            String flag = switch (bad.keySet().iterator().next()) {
                case BackendContext.GPU_LAYERS -> "-ngl";
                case BackendContext.MAIN_GPU -> "--main-gpu";
                case BackendContext.SPLIT_MODE -> "--split-mode";
                case BackendContext.TENSOR_SPLIT -> "--tensor-split";
                default -> "--device";
            };
            BackendException e = assertThrows(BackendException.class, () -> of(bad));
            assertTrue(e.getMessage().startsWith(flag), e.getMessage());
        }
    }
}
