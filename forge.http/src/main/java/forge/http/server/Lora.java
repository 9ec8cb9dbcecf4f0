package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import forge.api.backend.AdapterScale;
import forge.api.backend.LoraAdapter;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.ServedModel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * llama-server's per-request {@code lora}: a list of {@code {"id", "scale"}}, the ids those of
 * {@code GET /lora-adapters}; an adapter the list leaves out gets scale 0, and an empty list is no
 * list (as llama-server reads it). Read by every door that
 * generates, through its {@link Fields} (so validated and counted like every field), and resolved
 * against the model once it is served.
 *
 * <p>Which adapters a request applies: the list when it gives one; else, when its {@code model}
 * names an adapter served as a model of its own, that adapter at scale 1; else the scales
 * {@code POST /lora-adapters} last set (at start: 1 for each {@code --lora}, the scale of each
 * {@code --lora-scaled}, 0 for an adapter found beside the model).
 *
 * @param given  whether the body has a {@code lora} list
 * @param scales the list's scales by adapter id, in the order given
 */
record Lora(boolean given, Map<Integer, Float> scales) {

    /** A body without {@code lora}. */
    static final Lora NONE = new Lora(false, Map.of());

    /** More entries than any model has adapters is no request: the list is bounded before it is read. */
    static final int MAX_ENTRIES = 64;

    Lora {
        scales = Map.copyOf(scales);
    }

    /** The {@code lora} of a body (a door's {@link Fields}, so the field counts as read). */
    static Lora read(JsonNode body) {
        JsonNode node = body.get("lora");
        if (node == null || node.isNull()) {
            return NONE;
        }
        Map<Integer, Float> scales = list(node, "lora");
        // An empty list changes nothing, as in llama-server (launch_slot_with_task applies the
        // server's scales when the request's list is empty): a request turns adapters off by listing them at 0.
        return scales.isEmpty() ? NONE : new Lora(true, scales);
    }

    /**
     * A list of {@code {"id", "scale"}} at {@code at}: ids are integers from 0, each at most once;
     * a scale is a finite number, 0 when left out (llama-server's default).
     */
    static Map<Integer, Float> list(JsonNode node, String at) {
        if (!node.isArray()) {
            throw ApiError.badRequest(at, "'" + at + "' must be an array of objects with 'id' and 'scale'");
        }
        if (node.size() > MAX_ENTRIES) {
            throw ApiError.badRequest(
                    at, "'" + at + "' has " + node.size() + " entries; at most " + MAX_ENTRIES + " are allowed");
        }
        Map<Integer, Float> scales = new LinkedHashMap<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode entry = node.get(i);
            String here = at + "[" + i + "]";
            if (!entry.isObject()) {
                throw ApiError.badRequest(here, here + " must be an object with 'id' and 'scale'");
            }
            JsonNode id = entry.get("id");
            if (id == null || !id.isIntegralNumber() || id.asLong() < 0 || id.asLong() >= MAX_ENTRIES) {
                throw ApiError.badRequest(
                        here + ".id", here + ".id must be an adapter id, an integer from 0 (GET /lora-adapters)");
            }
            JsonNode scale = entry.get("scale");
            if (scale != null && !scale.isNull() && !scale.isNumber()) {
                throw ApiError.badRequest(here + ".scale", here + ".scale must be a number");
            }
            float value = scale == null || scale.isNull() ? 0f : (float) scale.asDouble();
            if (!Float.isFinite(value)) {
                throw ApiError.badRequest(here + ".scale", here + ".scale must be a finite number");
            }
            if (scales.put(id.asInt(), value) != null) {
                throw ApiError.badRequest(here + ".id", here + ".id names adapter " + id.asInt() + " a second time");
            }
        }
        return scales;
    }

    /**
     * The adapters a request for {@code name} applies on {@code model} (see the class
     * documentation); a 400 for an id the model has no adapter under.
     */
    List<AdapterScale> resolve(String name, ModelEntry entry, ServedModel model) {
        List<LoraAdapter> loaded = model.adapters();
        float[] chosen;
        if (given) {
            chosen = new float[loaded.size()];
            scales.forEach((id, scale) -> {
                if (id >= loaded.size()) {
                    throw ApiError.badRequest(
                            "lora",
                            "lora names adapter " + id + "; " + entry.id() + " has " + loaded.size()
                                    + (loaded.isEmpty() ? "" : " (ids 0 to " + (loaded.size() - 1) + ")"));
                }
                chosen[id] = scale;
            });
        } else if (!name.isEmpty() && entry.adapterNamed(name).isPresent()) {
            chosen = new float[loaded.size()];
            int id = entry.adapterNamed(name).get();
            if (id >= loaded.size()) {
                throw new ApiError(
                        503,
                        "server_error",
                        "unavailable",
                        "model",
                        "the LoRA adapter '" + name + "' was added after " + entry.id()
                                + " loaded; it loads with it next");
            }
            chosen[id] = 1f;
        } else {
            chosen = entry.adapterScales();
        }
        List<AdapterScale> set = new ArrayList<>();
        for (int i = 0; i < Math.min(chosen.length, loaded.size()); i++) {
            if (chosen[i] != 0) {
                set.add(new AdapterScale(loaded.get(i), chosen[i]));
            }
        }
        return set;
    }
}
