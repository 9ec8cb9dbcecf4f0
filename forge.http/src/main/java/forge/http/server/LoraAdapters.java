package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.runtime.catalog.AdapterFile;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import java.util.List;

/**
 * llama-server's {@code GET /lora-adapters} ({@code [{"id", "path", "scale"}]}) and
 * {@code POST /lora-adapters} ({@code [{"id", "scale"}]}: the scales requests that name no
 * {@code lora} apply; an adapter left out gets 0; answers {@code {"success": true}}), for the model
 * named by {@code ?model=} or the server's only model. The scales belong to the catalog's entry, so
 * they outlive an unload; nothing here touches an engine: the next request that starts applies them.
 */
final class LoraAdapters {

    private final ModelCatalog catalog;

    LoraAdapters(ModelCatalog catalog) {
        this.catalog = catalog;
    }

    /** {@code GET /lora-adapters}. */
    ArrayNode list(String model) {
        ModelEntry entry = Requests.entry(catalog, model);
        List<AdapterFile> adapters = entry.adapters();
        float[] scales = entry.adapterScales();
        ArrayNode list = Json.MAPPER.createArrayNode();
        for (int i = 0; i < adapters.size(); i++) {
            AdapterFile a = adapters.get(i);
            list.addObject()
                    .put("id", i)
                    .put("path", a.path().toString())
                    .put("scale", scales[i])
                    .put("model", a.id())
                    .put("source", a.source());
        }
        return list;
    }

    /** {@code POST /lora-adapters}. */
    ObjectNode set(String model, JsonNode body) {
        ModelEntry entry = Requests.entry(catalog, model);
        if (!body.isArray()) {
            throw ApiError.badRequest(null, "the request body must be an array of objects with 'id' and 'scale'");
        }
        try {
            entry.adapterScales(Lora.list(body, "body"));
        } catch (IllegalArgumentException e) {
            throw ApiError.badRequest("id", e.getMessage());
        }
        return Json.MAPPER.createObjectNode().put("success", true);
    }
}
