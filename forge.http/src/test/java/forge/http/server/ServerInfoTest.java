package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import forge.runtime.engine.EngineHealth;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServerInfoTest {

    @Test
    void healthNamesEachFailingModelAndWhy() {
        Map<String, EngineHealth> engines = new LinkedHashMap<>();
        engines.put("a", new EngineHealth(EngineHealth.State.RUNNING, "", false, 0));
        assertEquals("{\"status\":\"ok\"}", ServerInfo.health(engines).toString());
        engines.put("b", new EngineHealth(EngineHealth.State.FAILED, "the engine for b failed: native crash", true, 0));
        engines.put("c", new EngineHealth(EngineHealth.State.FAILED, "gone", false, 2));
        assertEquals(
                "{\"status\":\"error\",\"models\":[{\"model\":\"b\",\"state\":\"failed\",\"reason\":"
                        + "\"the engine for b failed: native crash\",\"retrying\":true},{\"model\":\"c\",\"state\":\"failed\","
                        + "\"reason\":\"gone\",\"retrying\":false}]}",
                ServerInfo.health(engines).toString());
    }
}
