package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.ForgeException;
import forge.http.hub.HubPull;
import forge.runtime.catalog.KeepAlive;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.ModelSource;
import forge.runtime.catalog.ModelState;
import forge.runtime.catalog.ModelUnavailableException;
import forge.runtime.catalog.ServedModel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The model management routes, named as llama-server's router names them: {@code GET /models}
 * (every model with its state), {@code POST /models/load}, {@code POST /models/unload},
 * {@code POST /models/pull} (Ollama's {@code /api/pull} progress lines); and the
 * fields every model listing shares ({@code /v1/models} adds them to OpenAI's).
 */
final class ModelsApi {

    private final ModelCatalog catalog;
    /** Where {@code POST /models/pull} pulls from and into; null when the server was not given one. */
    volatile HubPull hub;

    ModelsApi(ModelCatalog catalog) {
        this.catalog = catalog;
    }

    /**
     * {@code POST /models/pull {"model": "org/repo[:QUANT]" | "org/repo/file.gguf", "stream"}}:
     * pulls from the Hugging Face hub into its cache and registers the model, streaming progress
     * as Ollama's {@code /api/pull} does: NDJSON lines {@code {"status","digest","total","completed"}},
     * ending with {@code {"status":"success","model":ID}} or {@code {"error":...}}. With
     * {@code "stream": false}, one JSON object once done.
     */
    void pull(JsonNode body, Response response, Callback callback) {
        pull(body, null, response, callback);
    }

    /**
     * {@link #pull(JsonNode, Response, Callback)}, the pulled model then also answering to
     * {@code alias} (the name an Ollama client pulled it by, which it then asks for), unless null.
     */
    void pull(JsonNode body, String alias, Response response, Callback callback) {
        HubPull pull = hub;
        if (pull == null) {
            throw new ApiError(501, "server_error", "not_configured", null, "this server pulls no models");
        }
        JsonNode name = body.has("model") ? body.get("model") : body.get("name");
        if (name == null || !name.isTextual() || name.asText().isBlank()) {
            throw ApiError.badRequest("model", "'model' is required: org/repo, org/repo:QUANT or org/repo/file.gguf");
        }
        HubPull.Target target;
        try {
            target = HubPull.Target.parse(name.asText());
        } catch (ForgeException e) {
            throw ApiError.badRequest("model", e.getMessage());
        }
        boolean stream = !body.has("stream") || body.get("stream").asBoolean(true);
        // the repository's projector comes with the model, as llama-server's --mmproj-auto; false skips it
        JsonNode mmproj = body.get("mmproj");
        if (mmproj != null && !mmproj.isNull() && !mmproj.isBoolean()) {
            throw ApiError.badRequest("mmproj", "'mmproj' must be true or false");
        }
        boolean projector = mmproj == null || mmproj.asBoolean(true);
        if (!stream) {
            HubPull.Result r;
            try {
                r = pull.pull(target, projector, p -> {});
            } catch (ForgeException e) {
                throw new ApiError(502, "server_error", "pull_failed", "model", e.getMessage());
            }
            ForgeServer.sendJson(
                    response,
                    callback,
                    200,
                    Json.MAPPER.createObjectNode().put("status", "success").put("model", register(pull, r, alias)));
            return;
        }
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/x-ndjson");
        ObjectNode last;
        try {
            HubPull.Result r = pull.pull(target, projector, p -> {
                if (p.status().equals("success")) {
                    return; // said below, with the model's id, once it is registered
                }
                ObjectNode line = Json.MAPPER.createObjectNode().put("status", p.status());
                if (!p.digest().isEmpty()) {
                    line.put("digest", p.digest()).put("total", p.total()).put("completed", p.completed());
                }
                try {
                    line(response, line);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            last = Json.MAPPER.createObjectNode().put("status", "success").put("model", register(pull, r, alias));
        } catch (ForgeException e) {
            last = Json.MAPPER.createObjectNode().put("error", e.getMessage());
        } catch (UncheckedIOException e) {
            callback.failed(e.getCause()); // the client went away; what was fetched stays for a resume
            return;
        }
        byte[] json = Json.bytes(last);
        ByteBuffer buffer =
                ByteBuffer.allocate(json.length + 1).put(json).put((byte) '\n').flip();
        response.write(true, buffer, callback);
    }

    /** Registers what a pull wrote (the hub cache is a source like any other) and returns its id. */
    private String register(HubPull pull, HubPull.Result r, String alias) {
        catalog.addSource(new ModelSource.HfCache(pull.hub()));
        String id = catalog.find(r.id()).map(ModelEntry::id).orElse(r.id());
        if (alias != null && catalog.find(alias).isEmpty()) {
            catalog.alias(alias, id);
        }
        return id;
    }

    private static void line(Response response, ObjectNode line) throws IOException {
        byte[] json = Json.bytes(line);
        ByteBuffer buffer =
                ByteBuffer.allocate(json.length + 1).put(json).put((byte) '\n').flip();
        SseWriter.write(response, buffer);
    }

    /**
     * {@code GET /models}: llama-server's router shape ({@code {"object":"list","data":[{"id",
     * "aliases","object":"model","status":{"value"}}]}}) with ForgeLM's fields beside it: source,
     * path, size, template, context, load progress, users, reason.
     */
    ObjectNode list() {
        ObjectNode list = Json.MAPPER.createObjectNode().put("object", "list");
        ArrayNode data = list.putArray("data");
        for (ModelEntry e : catalog.entries()) {
            ObjectNode m = data.addObject();
            m.put("id", e.id());
            ArrayNode aliases = m.putArray("aliases");
            e.descriptor().aliases().forEach(aliases::add);
            m.put("object", "model");
            m.put("owned_by", "forgelm");
            m.set("status", status(e));
            describe(e, m);
            ObjectNode arch = m.putObject("architecture");
            ArrayNode input = arch.putArray("input_modalities").add("text");
            if (ModelCapabilities.vision(e)) {
                input.add("image");
            }
            if (ModelCapabilities.audio(e)) {
                input.add("audio");
            }
            arch.putArray("output_modalities").add("text");
        }
        return list;
    }

    /** The model's state as llama-server's router shows it, with the progress or the reason. */
    static ObjectNode status(ModelEntry e) {
        ModelState state = e.state();
        ObjectNode s = Json.MAPPER.createObjectNode().put("value", state.value());
        switch (state) {
            case ModelState.Loading l -> {
                s.put("progress", Math.round(l.progress() * 1000) / 1000.0);
                s.put("waiting", l.waiting());
            }
            case ModelState.Failed f -> s.put("failed", true).put("reason", f.reason());
            case ModelState.Reloading r -> s.put("reloading", true).put("reason", r.reason());
            case ModelState.Unavailable u -> s.put("failed", true).put("reason", u.reason());
            case ModelState.Loaded l -> s.put("in_use", e.users());
            case ModelState.Unloaded u -> {}
        }
        return s;
    }

    /** The fields every listing of a model shares: availability, source, files, template, context. */
    static void describe(ModelEntry e, ObjectNode m) {
        m.put("available", e.available());
        e.reason().ifPresent(r -> m.put("reason", r));
        m.put("source", e.source());
        m.put("path", e.descriptor().path().toString());
        m.put("size", e.fileBytes());
        e.projector().ifPresent(p -> m.put("mmproj", p.toString()));
        if (e.parts().size() > 1) {
            m.put("parts", e.parts().size());
        }
        e.descriptor().metadata().architecture().ifPresent(a -> m.put("model_architecture", a));
        e.descriptor().metadata().contextLength().ifPresent(n -> m.put("context_length", n));
        e.templateSelection().ifPresent(t -> {
            ObjectNode template = m.putObject("template");
            template.put("name", t.variant());
            template.put("family", t.provider().family());
            template.put("plugin", t.provider().getClass().getModule().getName());
            template.put("rule", t.rule());
            template.put("reason", t.reason());
            e.templateError().ifPresent(why -> template.put("error", why));
        });
        e.served()
                .map(ServedModel::engine)
                .ifPresent(engine -> m.put("slot_context", engine.config().slotContext()));
        e.keepAlive().ifPresent(k -> m.put("keep_alive", k.toString()));
        m.put("loads", e.loads());
    }

    /**
     * {@code POST /models/load {"model"}}: starts loading the model on the loader thread and
     * waits for it as a request would; a model already loaded answers at once.
     */
    ObjectNode load(JsonNode body) {
        ModelEntry e = entry(body);
        try {
            catalog.load(e).get(catalog.lifecycle().loadWait().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException x) {
            // still loading: say so, as the status shows
        } catch (ExecutionException x) {
            throw new ModelUnavailableException(
                    e.id(), ModelUnavailableException.Kind.FAILED, e.reason().orElse(x.getMessage()));
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new ApiError(503, "server_error", "interrupted", null, "interrupted while loading " + e.id());
        }
        ObjectNode out = Json.MAPPER.createObjectNode().put("success", true);
        out.set("status", status(e));
        return out;
    }

    /** {@code POST /models/unload {"model"}}: unloads it now, or once the requests using it end. */
    ObjectNode unload(JsonNode body) {
        ModelEntry e = entry(body);
        if (!catalog.unload(e)) {
            throw ApiError.badRequest("model", "the model '" + e.id() + "' is not loaded");
        }
        ObjectNode out = Json.MAPPER.createObjectNode().put("success", true);
        out.set("status", status(e));
        return out;
    }

    private ModelEntry entry(JsonNode body) {
        JsonNode model = body.get("model");
        if (model == null || !model.isTextual() || model.asText().isBlank()) {
            throw ApiError.badRequest("model", "'model' is required: the id or alias of a model");
        }
        return catalog.find(model.asText()).orElseThrow(() -> ForgeServer.unknownModel(model.asText()));
    }

    /**
     * Takes a request's {@code keep_alive} (Ollama's: a duration string or seconds; 0 unloads after
     * the request, negative keeps) out of its body, for the request scope to apply when it ends;
     * the routes never see it, so it is not an ignored parameter.
     */
    static void keepAlive(JsonNode body, ModelCatalog.RequestScope scope) {
        if (!(body instanceof ObjectNode o) || !o.has("keep_alive")) {
            return;
        }
        JsonNode k = o.remove("keep_alive");
        if (k.isNull()) {
            return;
        }
        try {
            scope.keepAlive(
                    k.isNumber()
                            ? KeepAlive.seconds(k.asDouble())
                            : k.isTextual() ? KeepAlive.parse(k.asText()) : KeepAlive.parse(k.toString()));
        } catch (IllegalArgumentException e) {
            throw ApiError.badRequest("keep_alive", e.getMessage());
        }
    }

    /** A model that cannot serve now, as an error: 400 naming the reason, or 503 while it loads. */
    static ApiError error(ModelUnavailableException e) {
        return switch (e.kind()) {
            case UNAVAILABLE, FAILED ->
                new ApiError(400, "invalid_request_error", "model_unavailable", "model", e.getMessage());
            case LOADING -> new ApiError(503, "server_error", "model_loading", null, e.getMessage());
        };
    }
}
