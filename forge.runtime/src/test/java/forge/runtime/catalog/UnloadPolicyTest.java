package forge.runtime.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class UnloadPolicyTest {

    private static UnloadPolicy.Resident idle(String id, long bytes, long lastUsed) {
        return new UnloadPolicy.Resident(id, bytes, lastUsed, 0, Long.MAX_VALUE);
    }

    @Test
    void theLeastRecentlyUsedIdleModelsMakeRoomForTheCount() {
        var policy = new UnloadPolicy(2, 0);
        var loaded = List.of(idle("b", 10, 20), idle("a", 10, 10));
        assertEquals(List.of("a"), policy.toMakeRoom(loaded, 10));
        assertEquals(List.of(), policy.toMakeRoom(List.of(idle("a", 10, 10)), 10));
        assertEquals(List.of("a", "b"), new UnloadPolicy(1, 0).toMakeRoom(loaded, 10));
    }

    @Test
    void theMemoryBudgetCountsEveryModelAndTheNewOne() {
        var policy = new UnloadPolicy(0, 100);
        var loaded = List.of(idle("a", 40, 1), idle("b", 40, 2), idle("c", 10, 3));
        assertEquals(List.of(), policy.toMakeRoom(loaded, 10));
        assertEquals(List.of("a"), policy.toMakeRoom(loaded, 30));
        assertEquals(List.of("a", "b"), policy.toMakeRoom(loaded, 60));
        assertEquals(List.of(), UnloadPolicy.UNLIMITED.toMakeRoom(loaded, 1L << 40));
    }

    @Test
    void aModelInUseIsNeverChosen() {
        var policy = new UnloadPolicy(1, 50);
        var busy = new UnloadPolicy.Resident("busy", 40, 1, 1, 0);
        var loaded = List.of(busy, idle("idle", 40, 5));
        // the busy one is the least recently used and over the limits, yet only the idle one goes
        assertEquals(List.of("idle"), policy.toMakeRoom(loaded, 40));
        assertEquals(List.of(), policy.expired(List.of(busy), 100));
    }

    @Test
    void idleModelsExpireAtTheirKeepAlive() {
        var loaded = List.of(
                new UnloadPolicy.Resident("due", 1, 0, 0, 100),
                new UnloadPolicy.Resident("later", 1, 0, 0, 200),
                new UnloadPolicy.Resident("kept", 1, 0, 0, Long.MAX_VALUE));
        assertEquals(List.of("due"), UnloadPolicy.UNLIMITED.expired(loaded, 150));
        assertEquals(List.of("due", "later"), UnloadPolicy.UNLIMITED.expired(loaded, 200));
        assertEquals(List.of(), UnloadPolicy.UNLIMITED.expired(loaded, 99));
    }

    @Test
    void theDefaultBudgetIsThreeQuartersOfTheRam() {
        assertEquals(12L << 30, UnloadPolicy.defaultMemory(16L << 30));
        assertEquals(0, UnloadPolicy.defaultMemory(-1));
        assertThrows(IllegalArgumentException.class, () -> new UnloadPolicy(-1, 0));
    }
}
