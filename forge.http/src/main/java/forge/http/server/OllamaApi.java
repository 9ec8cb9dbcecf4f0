package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.model.ModelMetadata;
import forge.runtime.catalog.KeepAlive;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.ServedModel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Ollama's API ({@code /api/...}, as its {@code docs/api.md} documents it) beside the others, for
 * the clients that speak only Ollama: the listings ({@code /api/version}, {@code /api/tags},
 * {@code /api/show}, {@code /api/ps}), embeddings ({@code /api/embed}, {@code /api/embeddings})
 * on the embedding core the OpenAI route uses, and {@code /api/pull} onto the Hugging Face pull.
 * Chat and generate are {@link OllamaChat}, on the run core. Every error under {@code /api} is
 * Ollama's {@code {"error": "..."}} with the status the route's check gave.
 *
 * <p>Names: a model answers to every name it has elsewhere (its id, each alias), and, as Ollama
 * resolves them, a name without a tag to the same name tagged {@code :latest}, and
 * {@code NAME:latest} to a model named {@code NAME} (a file stem or an alias, which has no tag).
 * The Ollama store's models are listed under the names {@code ollama list} shows.
 */
final class OllamaApi {

    /**
     * The Ollama version whose API this door follows, as {@code /api/version} reports it. Clients
     * gate features on it (VS Code's Copilot Chat wants at least 0.6.4); the routes and fields here
     * are those of this version's {@code docs/api.md} ({@code think} with efforts, {@code /api/embed}).
     */
    static final String VERSION = "0.12.6";

    /** What Ollama answers {@code GET /} and {@code HEAD /} with, which clients probe for. */
    static final String RUNNING = "Ollama is running";

    private final ModelCatalog catalog;
    private final Embeddings embeddings;
    private final ModelsApi models;

    OllamaApi(ModelCatalog catalog, Embeddings embeddings, ModelsApi models) {
        this.catalog = catalog;
        this.embeddings = embeddings;
        this.models = models;
    }

    /** Ollama's error body: {@code {"error": MESSAGE}}. */
    static JsonNode error(ApiError e) {
        return Json.MAPPER.createObjectNode().put("error", e.getMessage());
    }

    /** The model a request names, resolved as Ollama resolves names (see the class comment); a 404 in Ollama's words. */
    static ModelEntry entry(ModelCatalog catalog, JsonNode body) {
        JsonNode name = body.has("model") ? body.get("model") : body.get("name");
        if (name == null || !name.isTextual() || name.asText().isBlank()) {
            throw ApiError.badRequest("model", "model is required");
        }
        return find(catalog, name.asText())
                .orElseThrow(() -> ApiError.notFound(
                        "model_not_found", "model '" + name.asText() + "' not found, try pulling it first"));
    }

    /** The model under {@code name}, or {@code name:latest}, or {@code name} without {@code :latest}. */
    static Optional<ModelEntry> find(ModelCatalog catalog, String name) {
        if (name.length() > Requests.MAX_MODEL_LENGTH) {
            return Optional.empty();
        }
        return catalog.find(name)
                .or(() -> name.endsWith(":latest")
                        ? catalog.find(name.substring(0, name.length() - ":latest".length()))
                        : name.contains(":") ? Optional.empty() : catalog.find(name + ":latest"));
    }

    /** {@code GET /api/version}. */
    ObjectNode version() {
        return Json.MAPPER.createObjectNode().put("version", VERSION);
    }

    /** {@code GET /api/tags}: every model under each of its names, as {@code ollama list} lists them. */
    ObjectNode tags() {
        ObjectNode out = Json.MAPPER.createObjectNode();
        ArrayNode list = out.putArray("models");
        for (ModelEntry e : catalog.entries()) {
            for (String name : e.descriptor().names()) {
                ObjectNode m = list.addObject();
                m.put("name", name);
                m.put("model", name);
                m.put("modified_at", modified(e));
                m.put("size", e.fileBytes());
                m.put("digest", digest(e));
                m.set("details", details(e));
            }
        }
        return out;
    }

    /** {@code GET /api/ps}: the models loaded now, with when they will be unloaded. */
    ObjectNode ps() {
        ObjectNode out = Json.MAPPER.createObjectNode();
        ArrayNode list = out.putArray("models");
        for (ModelEntry e : catalog.entries()) {
            Optional<ServedModel> served = e.served();
            if (served.isEmpty()) {
                continue;
            }
            ObjectNode m = list.addObject();
            m.put("name", e.id());
            m.put("model", e.id());
            m.put("size", e.memoryBytes());
            m.put("digest", digest(e));
            m.set("details", details(e));
            m.put("expires_at", expires(e));
            // What the backend put on a GPU is not reported per model: the whole size is what it holds.
            m.put("size_vram", "cpu".equals(catalog.backendName()) ? 0 : e.memoryBytes());
            m.put("context_length", served.get().engine().config().slotContext());
        }
        return out;
    }

    /**
     * {@code POST /api/show}: the model's details, its GGUF metadata ({@code model_info}, the
     * large arrays left out as Ollama leaves them out), its template and what it can do.
     */
    ObjectNode show(JsonNode body, boolean strict) {
        ModelEntry e = entry(catalog, body);
        ModelMetadata meta = e.descriptor().metadata();
        ObjectNode out = Json.MAPPER.createObjectNode();
        out.put("license", meta.string("general.license").orElse(""));
        out.put(
                "modelfile",
                "# Modelfile of ForgeLM's model " + e.id() + "\nFROM "
                        + e.descriptor().path() + "\n");
        out.put(
                "parameters",
                e.served()
                        .map(s -> "num_ctx " + s.engine().config().slotContext())
                        .orElse(""));
        out.put("template", meta.chatTemplate().orElse(""));
        out.set("details", details(e));
        ObjectNode info = out.putObject("model_info");
        meta.values().forEach((key, value) -> {
            if (!key.equals("tokenizer.chat_template")) {
                info.set(key, Json.MAPPER.valueToTree(value));
            }
        });
        meta.arrayLengths().keySet().stream()
                .filter(k -> !meta.values().containsKey(k))
                .forEach(info::putNull);
        ArrayNode capabilities = out.putArray("capabilities");
        capabilities(e, strict).forEach(capabilities::add);
        out.put("modified_at", modified(e));
        // ForgeLM's own: where the model's tool calls are written (see ModelCapabilities), once known.
        ModelCapabilities.toolFormat(e, strict).ifPresent(f -> out.put("tool_format", f.wire()));
        return out;
    }

    /**
     * What a model can do, in Ollama's words: {@code completion} and {@code embedding} every model
     * (a model without pooling of its own is mean-pooled); {@code tools} as {@code /v1/models}
     * reports it ({@link ModelCapabilities}); {@code insert} when it has fill-in-the-middle tokens
     * (known from its vocabulary once loaded, from its metadata before); {@code thinking} when its
     * template reads a reasoning switch or opens a think block; {@code vision} and {@code audio}
     * for a model with a projector that reads them ({@link ModelCapabilities}).
     */
    static List<String> capabilities(ModelEntry e, boolean strict) {
        ModelMetadata meta = e.descriptor().metadata();
        List<String> out = new ArrayList<>(List.of("completion"));
        if (ModelCapabilities.tools(e, strict)) {
            out.add("tools");
        }
        boolean fim = e.served()
                .map(s -> Completions.fillsInTheMiddle(s.vocabulary()))
                .orElseGet(() -> meta.values().containsKey("tokenizer.ggml.fim_pre_token_id")
                        || meta.values().containsKey("tokenizer.ggml.prefix_token_id"));
        if (fim) {
            out.add("insert");
        }
        out.add("embedding");
        if (ModelCapabilities.vision(e)) {
            out.add("vision");
        }
        if (ModelCapabilities.audio(e)) {
            out.add("audio");
        }
        String template = meta.chatTemplate().orElse("");
        if (THINKING.matcher(template).find()) {
            out.add("thinking");
        }
        return out;
    }

    /** The options {@code Thinking} gives a template, or a think block the template opens. */
    private static final Pattern THINKING = Pattern.compile("enable_thinking|reasoning_effort|thinking_budget|<think>");

    /** {@code POST /api/embed}: {@code input} (a string or strings) to {@code embeddings}. */
    ObjectNode embed(Fields body, boolean strict) {
        long start = System.nanoTime();
        ModelEntry entry = entry(catalog, body);
        JsonNode input = body.get("input");
        if (Params.bool(body, "truncate", true) && body.has("truncate")) {
            // An input longer than the context is refused, never cut: Ollama's truncation has no effect here.
            body.unused("truncate");
        }
        if (body.has("dimensions")) {
            body.unused("dimensions");
        }
        Fields options = body.nested("options");
        check(body, options, strict);
        Embeddings.Embedded e = embeddings.embed(entry, input, "input");
        ObjectNode out = Json.MAPPER.createObjectNode().put("model", name(body, entry));
        ArrayNode vectors = out.putArray("embeddings");
        for (float[] v : e.vectors()) {
            ArrayNode array = vectors.addArray();
            for (float x : v) {
                array.add(x);
            }
        }
        out.put("total_duration", System.nanoTime() - start);
        out.put("load_duration", e.loadNanos());
        out.put("prompt_eval_count", e.tokens());
        return out;
    }

    /** {@code POST /api/embeddings}, the older route: one {@code prompt} to one {@code embedding}. */
    ObjectNode embeddings(Fields body, boolean strict) {
        ModelEntry entry = entry(catalog, body);
        JsonNode prompt = body.get("prompt");
        if (prompt == null || !prompt.isTextual()) {
            throw ApiError.badRequest("prompt", "'prompt' is required and must be a string");
        }
        Fields options = body.nested("options");
        check(body, options, strict);
        Embeddings.Embedded e = embeddings.embed(entry, prompt, "prompt");
        ObjectNode out = Json.MAPPER.createObjectNode();
        ArrayNode array = out.putArray("embedding");
        for (float x : e.vectors().getFirst()) {
            array.add(x);
        }
        return out;
    }

    /**
     * Options of an embedding request: none changes how a vector is computed, so each one given
     * is named without effect (or refused under {@code --strict}).
     */
    private static void check(Fields body, Fields options, boolean strict) {
        if (options != null) {
            options.properties().forEach(o -> options.unused(o.getKey()));
        }
        Strictness.check(strict, body.ignored());
    }

    /** The name the request gave, as Ollama echoes it. */
    private static String name(JsonNode body, ModelEntry entry) {
        JsonNode name = body.has("model") ? body.get("model") : body.get("name");
        return name != null && name.isTextual() ? name.asText() : entry.id();
    }

    /**
     * {@code POST /api/pull}: onto the Hugging Face pull ({@code org/repo[:QUANT]}, also written
     * {@code hf.co/org/repo:QUANT} as Ollama writes hub names). A name of Ollama's own registry
     * ({@code llama3.2}, {@code library/qwen3:8b}) is refused saying so: this server does not
     * fetch from Ollama's registry.
     */
    void pull(JsonNode body, Response response, Callback callback) {
        JsonNode name = body.has("model") ? body.get("model") : body.get("name");
        if (name == null || !name.isTextual() || name.asText().isBlank()) {
            throw ApiError.badRequest("model", "model is required");
        }
        ObjectNode translated = body.deepCopy();
        translated.remove("name");
        translated.remove("insecure");
        Matcher hf = HUB_NAME.matcher(name.asText());
        String repo = hf.matches() ? hf.group(1) : name.asText();
        if (!repo.contains("/") || repo.startsWith("library/") || repo.startsWith("registry.ollama.ai/")) {
            throw ApiError.badRequest(
                    "model",
                    "'" + name.asText() + "' is a name in Ollama's registry, which this server does not pull from;"
                            + " pull a GGUF from Hugging Face instead: org/repo[:QUANT] or hf.co/org/repo[:QUANT]");
        }
        translated.put("model", repo);
        models.pull(translated, name.asText(), response, callback);
    }

    /** Ollama's names for hub models: {@code hf.co/org/repo[:QUANT]} or {@code huggingface.co/...}. */
    private static final Pattern HUB_NAME = Pattern.compile("(?:hf\\.co|huggingface\\.co)/(.+)");

    /** {@code GET /} or {@code HEAD /} from a client that is no browser: Ollama's probe answer. */
    static void running(String method, Response response, Callback callback) {
        response.setStatus(200);
        response.getHeaders().put("Content-Type", "text/plain; charset=utf-8");
        byte[] text = RUNNING.getBytes(StandardCharsets.UTF_8);
        response.getHeaders().put("Content-Length", String.valueOf(text.length));
        response.write(true, "HEAD".equals(method) ? ByteBuffer.allocate(0) : ByteBuffer.wrap(text), callback);
    }

    /** Ollama's {@code details}: format, family, size label and quantization, from the GGUF's metadata. */
    static ObjectNode details(ModelEntry e) {
        ModelMetadata meta = e.descriptor().metadata();
        ObjectNode d = Json.MAPPER.createObjectNode();
        d.put("parent_model", "");
        d.put("format", "gguf");
        String arch = meta.architecture().orElse("");
        d.put("family", arch);
        ArrayNode families = d.putArray("families");
        if (!arch.isEmpty()) {
            families.add(arch);
        }
        d.put("parameter_size", meta.string("general.size_label").orElse(""));
        d.put("quantization_level", quantization(meta));
        return d;
    }

    /** llama.cpp's {@code llama_ftype} names ({@code general.file_type}), as Ollama shows them. */
    private static final Map<Long, String> FILE_TYPES = Map.ofEntries(
            Map.entry(0L, "F32"),
            Map.entry(1L, "F16"),
            Map.entry(2L, "Q4_0"),
            Map.entry(3L, "Q4_1"),
            Map.entry(7L, "Q8_0"),
            Map.entry(8L, "Q5_0"),
            Map.entry(9L, "Q5_1"),
            Map.entry(10L, "Q2_K"),
            Map.entry(11L, "Q3_K_S"),
            Map.entry(12L, "Q3_K_M"),
            Map.entry(13L, "Q3_K_L"),
            Map.entry(14L, "Q4_K_S"),
            Map.entry(15L, "Q4_K_M"),
            Map.entry(16L, "Q5_K_S"),
            Map.entry(17L, "Q5_K_M"),
            Map.entry(18L, "Q6_K"),
            Map.entry(19L, "IQ2_XXS"),
            Map.entry(20L, "IQ2_XS"),
            Map.entry(21L, "Q2_K_S"),
            Map.entry(22L, "IQ3_XS"),
            Map.entry(23L, "IQ3_XXS"),
            Map.entry(24L, "IQ1_S"),
            Map.entry(25L, "IQ4_NL"),
            Map.entry(26L, "IQ3_S"),
            Map.entry(27L, "IQ3_M"),
            Map.entry(28L, "IQ2_S"),
            Map.entry(29L, "IQ2_M"),
            Map.entry(30L, "IQ4_XS"),
            Map.entry(31L, "IQ1_M"),
            Map.entry(32L, "BF16"),
            Map.entry(36L, "TQ1_0"),
            Map.entry(37L, "TQ2_0"),
            Map.entry(38L, "MXFP4"));

    private static String quantization(ModelMetadata meta) {
        return meta.integer("general.file_type").stream()
                .mapToObj(t -> FILE_TYPES.getOrDefault(t, "unknown"))
                .findFirst()
                .orElse("unknown");
    }

    /**
     * The model's digest: for a model of Ollama's store, its blob's ({@code sha256-HEX}); for any
     * other, a SHA-256 of its path, size and modification time, which names this version of the
     * file without reading gigabytes (Ollama's own digest is of its manifest, not of the weights).
     */
    static String digest(ModelEntry e) {
        String file = e.descriptor().path().getFileName().toString();
        if (file.matches("sha256-[0-9a-f]{64}")) {
            return file.substring("sha256-".length());
        }
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            String identity = e.descriptor().path() + "\n" + e.fileBytes() + "\n" + modified(e);
            return HexFormat.of().formatHex(sha.digest(identity.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException x) {
            throw new IllegalStateException("every JDK has SHA-256", x);
        }
    }

    /** The file's modification time, RFC 3339. */
    static String modified(ModelEntry e) {
        try {
            return Files.getLastModifiedTime(e.descriptor().path()).toInstant().toString();
        } catch (IOException x) {
            return Instant.EPOCH.toString();
        }
    }

    /** When the model will be unloaded: its keep-alive (or the server's TTL) after its last use; far ahead for never. */
    private String expires(ModelEntry e) {
        KeepAlive k = e.keepAlive().orElse(catalog.lifecycle().ttl());
        if (k.forever()) {
            return "2318-01-01T00:00:00Z"; // what Ollama reports for keep_alive -1
        }
        long sinceUse = e.users() > 0 ? 0 : System.nanoTime() - e.lastUsed();
        return Instant.now().minusNanos(sinceUse).plus(k.duration()).toString();
    }
}
