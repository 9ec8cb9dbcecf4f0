package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.template.ChatMessage;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The responses kept for {@code previous_response_id}, {@code item_reference} and
 * {@code GET}/{@code DELETE /v1/responses/{id}}: in memory, bounded by count, by bytes and by age,
 * so that a long-running server holds at most {@code maxBytes} of them whatever its clients send.
 * Past a bound the least recently used go first; an entry older than {@code ttlMillis} is gone.
 * A conversation continued from a forgotten response is a 400 naming it, never a silent restart.
 *
 * <p>Thread-safe: every method locks the store (entries are small, and each request touches it
 * twice at most).
 */
final class ResponseStore {

    /** The defaults: a thousand responses, 64 MiB, a day. */
    static final int DEFAULT_COUNT = 1000;

    static final long DEFAULT_BYTES = 64L << 20;
    static final long DEFAULT_TTL_MILLIS = 24L * 3600 * 1000;

    /**
     * One kept response.
     *
     * @param response     the response object, as {@code GET /v1/responses/{id}} returns it
     * @param conversation the conversation it ends: its input (the previous responses' included,
     *                     its {@code instructions} not, as OpenAI carries them over) and its output
     * @param bytes        what it is counted as against the byte bound
     */
    record Entry(ObjectNode response, List<ChatMessage> conversation, long bytes) {
        Entry {
            conversation = List.copyOf(conversation);
        }

        String id() {
            return response.get("id").asText();
        }
    }

    private record Kept(Entry entry, long storedAt) {}

    private final int maxCount;
    private final long maxBytes;
    private final long ttlMillis;
    private final LongSupplier clock;
    /** By id, least recently used first. */
    private final LinkedHashMap<String, Kept> entries = new LinkedHashMap<>(16, 0.75f, true);
    /** Output item id to the response holding it, for {@code item_reference}. */
    private final Map<String, String> items = new HashMap<>();

    private long bytes;

    ResponseStore() {
        this(DEFAULT_COUNT, DEFAULT_BYTES, DEFAULT_TTL_MILLIS, System::currentTimeMillis);
    }

    ResponseStore(int maxCount, long maxBytes, long ttlMillis, LongSupplier clock) {
        if (maxCount < 1 || maxBytes < 1 || ttlMillis < 1) {
            throw new IllegalArgumentException("store bounds must be positive");
        }
        this.maxCount = maxCount;
        this.maxBytes = maxBytes;
        this.ttlMillis = ttlMillis;
        this.clock = clock;
    }

    /**
     * An entry for {@code response} and {@code conversation}, counted by their size as JSON text
     * (what holding them costs, within a small factor).
     */
    static Entry entry(ObjectNode response, List<ChatMessage> conversation) {
        long size = Json.bytes(response).length;
        for (ChatMessage m : conversation) {
            size += 64 + 2L * (m.content().length() + m.reasoningContent().length());
            for (var c : m.toolCalls()) {
                size += 32
                        + 2L
                                * (c.id().length()
                                        + c.name().length()
                                        + c.arguments().length());
            }
        }
        return new Entry(response, conversation, size);
    }

    /** Keeps {@code entry}, forgetting the least recently used ones that no longer fit. An entry larger than the whole store is not kept. */
    synchronized void put(Entry entry) {
        expire();
        remove(entry.id());
        if (entry.bytes() > maxBytes) {
            return;
        }
        entries.put(entry.id(), new Kept(entry, clock.getAsLong()));
        bytes += entry.bytes();
        for (JsonNode item : entry.response().path("output")) {
            if (item.path("id").isTextual()) {
                items.put(item.get("id").asText(), entry.id());
            }
        }
        Iterator<Map.Entry<String, Kept>> it = entries.entrySet().iterator();
        while ((entries.size() > maxCount || bytes > maxBytes) && it.hasNext()) {
            Kept oldest = it.next().getValue();
            it.remove();
            forget(oldest.entry());
        }
    }

    /** The entry with this id, while it is kept. */
    synchronized Optional<Entry> get(String id) {
        expire();
        Kept k = entries.get(id);
        return k == null ? Optional.empty() : Optional.of(k.entry());
    }

    /** The output item with this id, of a response still kept. */
    synchronized Optional<JsonNode> item(String id) {
        expire();
        String owner = items.get(id);
        Kept k = owner == null ? null : entries.get(owner);
        if (k == null) {
            return Optional.empty();
        }
        for (JsonNode item : k.entry().response().path("output")) {
            if (id.equals(item.path("id").asText(null))) {
                return Optional.of(item);
            }
        }
        return Optional.empty();
    }

    /** Forgets the entry with this id; whether there was one. */
    synchronized boolean remove(String id) {
        Kept k = entries.remove(id);
        if (k == null) {
            return false;
        }
        forget(k.entry());
        return true;
    }

    synchronized int size() {
        expire();
        return entries.size();
    }

    synchronized long bytes() {
        expire();
        return bytes;
    }

    private void forget(Entry e) {
        bytes -= e.bytes();
        for (JsonNode item : e.response().path("output")) {
            items.remove(item.path("id").asText(""), e.id());
        }
    }

    /** Drops what is older than the TTL (access order is not age order, so every entry is looked at). */
    private void expire() {
        long now = clock.getAsLong();
        Iterator<Map.Entry<String, Kept>> it = entries.entrySet().iterator();
        while (it.hasNext()) {
            Kept k = it.next().getValue();
            if (now - k.storedAt() >= ttlMillis) {
                it.remove();
                forget(k.entry());
            }
        }
    }
}
