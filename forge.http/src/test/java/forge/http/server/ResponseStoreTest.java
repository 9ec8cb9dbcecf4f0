package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.template.ChatMessage;
import forge.api.template.Role;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ResponseStoreTest {

    private final AtomicLong now = new AtomicLong(1_000);

    private static ResponseStore.Entry entry(String id, long bytes) {
        ObjectNode r = Json.MAPPER.createObjectNode().put("id", id);
        r.putArray("output").addObject().put("id", "msg_" + id).put("type", "message");
        return new ResponseStore.Entry(r, List.of(ChatMessage.of(Role.USER, "hi " + id)), bytes);
    }

    @Test
    void keepsAtMostItsCountLeastRecentlyUsedFirstOut() {
        ResponseStore store = new ResponseStore(2, 1 << 20, 60_000, now::get);
        store.put(entry("a", 10));
        store.put(entry("b", 10));
        assertTrue(store.get("a").isPresent()); // a is now the most recently used
        store.put(entry("c", 10));
        assertTrue(store.get("a").isPresent());
        assertFalse(store.get("b").isPresent(), "the least recently used went");
        assertTrue(store.get("c").isPresent());
        assertEquals(2, store.size());
    }

    @Test
    void keepsAtMostItsBytes() {
        ResponseStore store = new ResponseStore(100, 100, 60_000, now::get);
        store.put(entry("a", 40));
        store.put(entry("b", 40));
        store.put(entry("c", 40));
        assertFalse(store.get("a").isPresent());
        assertEquals(80, store.bytes());
        store.put(entry("huge", 101));
        assertFalse(store.get("huge").isPresent(), "larger than the whole store: not kept");
        assertEquals(80, store.bytes(), "and nothing else was thrown out for it");
    }

    @Test
    void forgetsWhatOutlivedItsTtl() {
        ResponseStore store = new ResponseStore(100, 1 << 20, 60_000, now::get);
        store.put(entry("a", 10));
        now.addAndGet(59_999);
        store.put(entry("b", 10));
        assertTrue(store.get("a").isPresent(), "reading does not extend the ttl, but a has a millisecond left");
        now.addAndGet(1);
        assertFalse(store.get("a").isPresent());
        assertFalse(store.item("msg_a").isPresent(), "its items go with it");
        assertTrue(store.get("b").isPresent());
        assertEquals(10, store.bytes());
    }

    @Test
    void findsOutputItemsByIdAndForgetsThemOnDelete() {
        ResponseStore store = new ResponseStore(100, 1 << 20, 60_000, now::get);
        store.put(entry("a", 10));
        assertEquals("message", store.item("msg_a").orElseThrow().get("type").asText());
        assertTrue(store.remove("a"));
        assertFalse(store.remove("a"));
        assertFalse(store.item("msg_a").isPresent());
        assertEquals(0, store.bytes());
    }

    @Test
    void storingAnIdAgainReplacesIt() {
        ResponseStore store = new ResponseStore(100, 1 << 20, 60_000, now::get);
        store.put(entry("a", 10));
        store.put(entry("a", 30));
        assertEquals(1, store.size());
        assertEquals(30, store.bytes());
    }

    @Test
    void anEntryIsCountedByWhatItHolds() {
        ObjectNode r = Json.MAPPER.createObjectNode().put("id", "x");
        long small =
                ResponseStore.entry(r, List.of(ChatMessage.of(Role.USER, "a"))).bytes();
        long large = ResponseStore.entry(r, List.of(ChatMessage.of(Role.USER, "a".repeat(10_000))))
                .bytes();
        assertTrue(large - small >= 10_000, small + " vs " + large);
    }
}
