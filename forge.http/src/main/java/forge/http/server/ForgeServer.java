package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.ForgeException;
import forge.api.TemplateException;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.ServedModel;
import forge.runtime.engine.EngineException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OpenAI-compatible HTTP server: Jetty 12 with request handling on virtual threads.
 *
 * {@snippet :
 * try (ForgeServer server = ForgeServer.start(ServerConfig.of("127.0.0.1", 8080), catalog)) {
 *     server.join();
 * }
 * }
 */
public final class ForgeServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ForgeServer.class);

    private final Server server;
    private final ServerConnector connector;
    /** How long a connection may stay silent, as llama-server's default {@code --timeout 600}. */
    static final long IDLE_TIMEOUT_MS = 600_000;

    private final ModelCatalog catalog;
    private final ServerConfig config;
    private final ChatCompletions chat;
    private final AnthropicMessages messages;
    private final Responses responses;
    private final TemplatesApi templates;
    private final ModelsApi modelsApi;
    private final ApiKeys apiKeys;
    private final Completions completions;
    private final Embeddings embeddings;
    private final Tokenization tokenization;
    private final CorsPolicy cors;
    private final BrowserGuard browsers;
    private final ForgeMetrics metrics;
    private final ServerInfo info;
    private final WebUi webUi = new WebUi(ForgeServer::apiPath);
    /** The start-up's model loads: /health is 503 until they complete. */
    private volatile CompletableFuture<?> loading = CompletableFuture.completedFuture(null);
    /** Set once shutdown began: new work and /health get 503 while in-flight requests finish. */
    private volatile boolean draining;
    /** Requests being answered, /health and the other cheap GETs aside. */
    private final java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();

    /** The plugin sampler stages a request's {@code samplers} may name. */
    private final forge.runtime.plugin.SamplerStages stages;

    private ForgeServer(ServerConfig config, ModelCatalog catalog, forge.runtime.plugin.SamplerStages stages) {
        this.stages = stages;
        this.config = config;
        this.catalog = catalog;
        this.metrics = new ForgeMetrics(catalog);
        this.info = new ServerInfo(catalog, stages);
        this.chat = new ChatCompletions(catalog, metrics, config.keepAliveMillis());
        this.messages = new AnthropicMessages(catalog, metrics, config.keepAliveMillis());
        this.responses = new Responses(catalog, metrics, config.keepAliveMillis(), new ResponseStore());
        this.apiKeys = new ApiKeys(config.apiKeys());
        this.completions = new Completions(catalog, metrics, config.keepAliveMillis());
        this.embeddings = new Embeddings(catalog);
        this.tokenization = new Tokenization(catalog);
        this.cors = new CorsPolicy(config.corsOrigins());
        this.browsers = new BrowserGuard(cors, config.host(), config.allowedHosts());
        this.templates = new TemplatesApi(catalog);
        this.modelsApi = new ModelsApi(catalog);
        QueuedThreadPool pool = new QueuedThreadPool();
        pool.setName("forge-http");
        // Handlers block (reading bodies, waiting for tokens): virtual threads make that cheap.
        // Native calls never happen on them; they belong to the engine threads.
        pool.setVirtualThreadsExecutor(Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("forge-request-", 0).factory()));
        server = new Server(pool);
        connector = new ServerConnector(server);
        connector.setHost(config.host());
        connector.setPort(config.port());
        // A whole (non-streaming) answer writes nothing until it is done, and a long prefill on a CPU
        // can take minutes: Jetty's 30 s default would cut such requests. llama-server waits 600 s.
        connector.setIdleTimeout(IDLE_TIMEOUT_MS);
        server.addConnector(connector);
        server.setHandler(new Router());
        server.setErrorHandler(new JsonErrorHandler());
        server.setStopTimeout(5_000);
    }

    /** Starts listening. */
    public static ForgeServer start(ServerConfig config, ModelCatalog catalog) {
        return start(config, catalog, forge.runtime.plugin.SamplerStages.NONE);
    }

    /** Starts listening; a request's {@code samplers} may name the plugin stages of {@code stages}. */
    public static ForgeServer start(ServerConfig config, ModelCatalog catalog, forge.runtime.plugin.SamplerStages stages) {
        return start(config, catalog, stages, CompletableFuture.completedFuture(null));
    }

    /**
     * Starts listening while {@code loading} (the start-up's model loads) runs: until it completes,
     * {@code /health} answers 503 "Loading model" as llama-server's does, and requests wait for
     * their model as they would for any load.
     */
    public static ForgeServer start(ServerConfig config, ModelCatalog catalog, forge.runtime.plugin.SamplerStages stages,
                                    CompletableFuture<?> loading) {
        ForgeServer s = new ForgeServer(config, catalog, stages);
        s.loading = loading;
        try {
            s.server.start();
        } catch (Exception e) {
            throw new ForgeException("cannot listen on " + config.host() + ":" + config.port() + ": " + e.getMessage(), e);
        }
        LOG.info("listening on http://{}:{}", config.host(), s.port());
        return s;
    }

    /** Lets {@code POST /models/pull} pull from {@code hub} into its cache (off until called). */
    public void usePull(forge.http.hub.HubPull hub) {
        modelsApi.hub = hub;
    }

    /** The port actually bound (useful with port 0). */
    public int port() {
        return connector.getLocalPort();
    }

    public void join() throws InterruptedException {
        server.join();
    }

    /**
     * Starts draining, as a load balancer expects of a server being stopped: from now on
     * {@code /health} and every new request get 503 with {@code Retry-After}, and requests already
     * running go on. Waits until they are done or {@code grace} has passed.
     *
     * @return the requests still running when this returns (0 when all finished in time)
     */
    public int drain(java.time.Duration grace) throws InterruptedException {
        draining = true;
        long deadline = System.nanoTime() + grace.toNanos();
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return inFlight.get();
    }

    /** Whether {@link #drain} was called. */
    public boolean draining() {
        return draining;
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            LOG.warn("error stopping the server: {}", e.toString());
        }
    }

    /** Routes by method and path; turns every failure into an OpenAI-shaped error. */
    private final class Router extends Handler.Abstract {
        @Override
        public boolean handle(Request request, Response response, Callback done) {
            String path = Request.getPathInContext(request);
            String method = request.getMethod();
            String origin = request.getHeaders().get(HttpHeader.ORIGIN);
            long start = System.nanoTime();
            boolean counted = !"/health".equals(path) && !"/metrics".equals(path);
            if (counted) {
                inFlight.incrementAndGet();
            }
            // Counts the request once its last byte is written (or the client is gone: 499, as nginx says).
            Callback callback = new Callback.Nested(done) {
                private final java.util.concurrent.atomic.AtomicBoolean over = new java.util.concurrent.atomic.AtomicBoolean();

                @Override
                public void succeeded() {
                    metrics.request(path, response.getStatus(), System.nanoTime() - start);
                    end();
                    super.succeeded();
                }

                @Override
                public void failed(Throwable x) {
                    boolean clientGone = x instanceof org.eclipse.jetty.io.EofException
                            || (response.isCommitted() && !(x instanceof ApiError));
                    metrics.request(path, clientGone ? 499 : response.getStatus(), System.nanoTime() - start);
                    end();
                    super.failed(x);
                }

                private void end() {
                    if (counted && over.compareAndSet(false, true)) {
                        inFlight.decrementAndGet();
                    }
                }
            };
            // The models this request is served by stay loaded until it ends (ModelCatalog's leases).
            try (ModelCatalog.RequestScope scope = catalog.requestScope()) {
                // Before anything else, preflights included: a page of another site gets nothing to run.
                browsers.check(request.getHeaders().get(HttpHeader.HOST), origin);
                if ("OPTIONS".equals(method)) {
                    // A preflight carries no credentials: answer it before the key check.
                    cors.preflight(origin, request.getHeaders().get(HttpHeader.ACCESS_CONTROL_REQUEST_HEADERS), response.getHeaders());
                    response.setStatus(204);
                    callback.succeeded();
                    return true;
                }
                cors.decorate(origin, response.getHeaders());
                if (draining) {
                    if ("/health".equals(path)) {
                        sendJson(response, callback, 503, Json.MAPPER.createObjectNode().put("status", "draining"));
                        return true;
                    }
                    throw new ApiError(503, "server_error", "shutting_down", null,
                            "the server is shutting down; retry on another instance or after it restarts");
                }
                // The web UI's files, before the key check: the page asks for the key that its API calls then carry.
                java.util.Optional<WebUi.Asset> page = webUi.resolve(method, path, request.getHeaders().get(HttpHeader.ACCEPT));
                if (page.isPresent()) {
                    WebUi.send(page.get(), request, response, callback);
                    return true;
                }
                if (!"/health".equals(path)) {
                    apiKeys.check(request.getHeaders().get(HttpHeader.AUTHORIZATION), request.getHeaders().get("x-api-key"));
                }
                switch (path) {
                    case "/health" -> {
                        requireMethod(method, "GET");
                        if (!loading.isDone()) {
                            // llama-server's answer while it loads its model.
                            ObjectNode body = Json.MAPPER.createObjectNode().put("status", "loading");
                            body.putObject("error").put("code", 503).put("message", "Loading model").put("type", "unavailable_error");
                            response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
                            sendJson(response, callback, 503, body);
                            return true;
                        }
                        ObjectNode health = info.health();
                        boolean ok = "ok".equals(health.get("status").asText());
                        if (!ok) {
                            response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
                        }
                        sendJson(response, callback, ok ? 200 : 503, health);
                    }
                    case "/v1/models" -> {
                        requireMethod(method, "GET");
                        sendJson(response, callback, 200, models());
                    }
                    case "/models" -> {
                        requireMethod(method, "GET");
                        sendJson(response, callback, 200, modelsApi.list());
                    }
                    case "/models/load" -> {
                        requireMethod(method, "POST");
                        sendJson(response, callback, 200, modelsApi.load(modelBody(request, scope)));
                    }
                    case "/models/unload" -> {
                        requireMethod(method, "POST");
                        sendJson(response, callback, 200, modelsApi.unload(modelBody(request, scope)));
                    }
                    case "/models/pull" -> {
                        requireMethod(method, "POST");
                        modelsApi.pull(modelBody(request, scope), response, callback);
                    }
                    case "/slots" -> {
                        requireMethod(method, "GET");
                        sendJson(response, callback, 200, info.slots(modelParam(request)));
                    }
                    case "/props" -> {
                        requireMethod(method, "GET");
                        sendJson(response, callback, 200, info.props(modelParam(request)));
                    }
                    case "/metrics" -> {
                        requireMethod(method, "GET");
                        response.setStatus(200);
                        response.getHeaders().put(HttpHeader.CONTENT_TYPE, metrics.contentType());
                        response.write(true, ByteBuffer.wrap(metrics.scrape()), callback);
                    }
                    case "/v1/chat/completions" -> {
                        requireMethod(method, "POST");
                        ChatRequest chatRequest = ChatRequest.parse(fields(request, scope));
                        Strictness.check(config.strict(), chatRequest.ignored());
                        chat.handle(chatRequest, config.strict(), request, response, callback);
                    }
                    case "/v1/messages" -> {
                        requireMethod(method, "POST");
                        messages.handle(fields(request, scope), config.strict(), request, response, callback);
                    }
                    case "/v1/messages/count_tokens" -> {
                        requireMethod(method, "POST");
                        sendJson(response, callback, 200, messages.countTokens(fields(request, scope), config.strict()));
                    }
                    case "/v1/responses" -> {
                        requireMethod(method, "POST");
                        responses.handle(fields(request, scope), config.strict(), request, response, callback);
                    }
                    case "/v1/completions" -> {
                        requireMethod(method, "POST");
                        completions.handle(fields(request, scope), config.strict(), request, response, callback);
                    }
                    case "/v1/embeddings" -> {
                        requireMethod(method, "POST");
                        embeddings.handle(fields(request, scope), config.strict(), response, callback);
                    }
                    case "/tokenize" -> {
                        requireMethod(method, "POST");
                        sendJson(response, callback, 200, tokenization.tokenize(modelBody(request, scope)));
                    }
                    case "/detokenize" -> {
                        requireMethod(method, "POST");
                        sendJson(response, callback, 200, tokenization.detokenize(modelBody(request, scope)));
                    }
                    case "/v1/templates" -> {
                        requireMethod(method, "GET");
                        sendJson(response, callback, 200, templates.list());
                    }
                    case "/apply-template" -> {
                        requireMethod(method, "POST");
                        sendJson(response, callback, 200, templates.apply(modelBody(request, scope)));
                    }
                    default -> {
                        if (path.startsWith("/v1/models/")) {
                            requireMethod(method, "GET");
                            String id = path.substring("/v1/models/".length());
                            ModelEntry entry = catalog.find(id).orElseThrow(() -> unknownModel(id));
                            sendJson(response, callback, 200, model(entry, entry.descriptor().names().stream()
                                    .filter(n -> n.equals(id)).findFirst().orElse(entry.id())));
                        } else if (path.startsWith("/v1/responses/") && path.indexOf('/', "/v1/responses/".length()) < 0) {
                            String id = path.substring("/v1/responses/".length());
                            if ("DELETE".equals(method)) {
                                sendJson(response, callback, 200, responses.delete(id));
                            } else {
                                requireMethod(method, "GET");
                                sendJson(response, callback, 200, responses.get(id));
                            }
                        } else {
                            throw ApiError.notFound("not_found", "no route for " + method + " " + path);
                        }
                    }
                }
            } catch (ApiError e) {
                if (request.getAttribute(BODY_READ) == null && hasBody(request)) {
                    // Refused before its body was read (401, 413, 404 route, 405): the unread bytes make
                    // the connection unusable, so say so rather than let a client reuse it and fail.
                    response.getHeaders().put(HttpHeader.CONNECTION, "close");
                }
                sendError(response, callback, e, path);
            } catch (forge.runtime.catalog.ModelUnavailableException e) {
                ApiError error = ModelsApi.error(e);
                if (error.status() == 503) {
                    response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
                }
                sendError(response, callback, error, path);
            } catch (TemplateException e) {
                sendError(response, callback, ApiError.badRequest("messages", e.getMessage()), path);
            } catch (EngineException e) {
                sendError(response, callback, ApiError.of(e), path);
            } catch (RuntimeException | StackOverflowError e) {
                // A bug: the details go to the log under an id the client is given, not to the client.
                String incident = Ids.next("");
                LOG.error("{} {} failed (incident {})", method, path, incident, e);
                sendError(response, callback, new ApiError(500, "server_error", "internal_error", null,
                        "internal error; the server's log has the details under incident " + incident), path);
            } catch (OutOfMemoryError e) {
                // An incident: this request fails; what it held is garbage now, and every engine keeps
                // its own state (an engine thread that died refuses new work and says so).
                LOG.error("{} {}: the JVM ran out of memory (max heap {} MiB)", method, path,
                        Runtime.getRuntime().maxMemory() >> 20, e);
                sendError(response, callback, new ApiError(503, "server_error", "out_of_memory", null,
                        "the server ran out of memory for this request; retry later or with a smaller request"), path);
            }
            return true;
        }
    }

    /** The exact paths of the API's routes (the switch above), and llama-server's {@code /models} of router mode. */
    private static final java.util.Set<String> API_PATHS = java.util.Set.of("/health", "/v1/models", "/slots", "/props", "/metrics",
            "/v1/chat/completions", "/v1/messages", "/v1/messages/count_tokens", "/v1/responses", "/v1/completions", "/v1/embeddings",
            "/tokenize", "/detokenize", "/v1/templates", "/apply-template", "/models");

    /** Whether {@code path} belongs to the API: never answered with the web UI's page, even to a browser. */
    static boolean apiPath(String path) {
        return API_PATHS.contains(path) || path.equals("/v1") || path.startsWith("/v1/") || path.startsWith("/models/");
    }

    /** The optional {@code ?model=} of {@code /slots} and {@code /props}. */
    private static java.util.Optional<String> modelParam(Request request) {
        return java.util.Optional.ofNullable(Request.extractQueryParameters(request).getValue("model")).filter(m -> !m.isBlank());
    }

    private static void requireMethod(String method, String expected) {
        if (!expected.equals(method)) {
            throw new ApiError(405, "invalid_request_error", "method_not_allowed", null,
                    "method " + method + " is not allowed here; use " + expected);
        }
    }

    static ApiError unknownModel(String id) {
        return ApiError.notFound("model_not_found", "the model '" + id + "' does not exist");
    }

    /** Reads the whole body, refusing more than the limit with 413 before reading it all. */
    /** Set on a request once its body has been read in full. */
    private static final String BODY_READ = "forge.bodyRead";

    private static boolean hasBody(Request request) {
        return request.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH) > 0
                || request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
    }

    private byte[] readBody(Request request) {
        long declared = request.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH);
        if (declared > config.bodyLimit()) {
            throw tooLarge();
        }
        try (InputStream in = Content.Source.asInputStream(request)) {
            byte[] body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, config.bodyLimit() + 1));
            if (body.length > config.bodyLimit()) {
                throw tooLarge();
            }
            request.setAttribute(BODY_READ, Boolean.TRUE);
            return body;
        } catch (IOException e) {
            throw ApiError.badRequest(null, "cannot read the request body: " + e.getMessage());
        }
    }

    /** A model route's JSON body, its {@code keep_alive} taken for the request scope. */
    private JsonNode modelBody(Request request, ModelCatalog.RequestScope scope) {
        JsonNode body = Json.parse(readBody(request));
        ModelsApi.keepAlive(body, scope);
        return body;
    }

    /** A generating door's body, to be read by its parser with this server's sampler stages. */
    private Fields fields(Request request, ModelCatalog.RequestScope scope) {
        return Fields.of(modelBody(request, scope), stages);
    }

    private ApiError tooLarge() {
        return new ApiError(413, "invalid_request_error", "request_too_large", null,
                "the request body exceeds the limit of " + config.bodyLimit() + " bytes");
    }

    /**
     * Every model under each of its names, the canonical id first: editors' model pickers show
     * ids only, so an alias given with {@code --alias} must be an id of its own to be chosen.
     */
    private ObjectNode models() {
        ObjectNode list = Json.MAPPER.createObjectNode().put("object", "list");
        ArrayNode data = list.putArray("data");
        for (ModelEntry e : catalog.entries()) {
            for (String name : e.descriptor().names()) {
                data.add(model(e, name));
            }
        }
        return list;
    }

    /** The model as {@code /v1/models} lists it under {@code name}, its id or an alias. */
    private static ObjectNode model(ModelEntry e, String name) {
        ObjectNode m = Json.MAPPER.createObjectNode();
        m.put("id", name);
        if (!name.equals(e.id())) {
            m.put("alias_of", e.id());
        }
        m.put("object", "model");
        long created;
        try {
            created = Files.getLastModifiedTime(e.descriptor().path()).toMillis() / 1000;
        } catch (IOException ex) {
            created = 0;
        }
        m.put("created", created);
        m.put("owned_by", "forgelm");
        ArrayNode aliases = m.putArray("aliases");
        e.descriptor().aliases().forEach(aliases::add);
        // available, reason, source, path, size, template (with its error), context: as GET /models has them
        ModelsApi.describe(e, m);
        // a model's own template that does not parse once loaded: the model is served, each request refused with this
        e.served().flatMap(s -> s.template().unusable()).ifPresent(why -> m.with("template").put("error", why));
        e.descriptor().metadata().architecture().ifPresent(a -> m.put("architecture", a));
        m.set("status", ModelsApi.status(e));
        m.put("loaded", e.served().isPresent());
        // What a client may ask of it: every model chats and embeds (mean-pooled when it has no
        // pooling of its own); tool calls are known once loaded: the template must have a
        // tool-call format (its trigger texts).
        ArrayNode capabilities = m.putArray("capabilities").add("chat").add("completions").add("embeddings");
        e.served().filter(s -> !s.template().toolCallTriggers().isEmpty()).ifPresent(s -> capabilities.add("tools"));
        return m;
    }

    static void sendJson(Response response, Callback callback, int status, JsonNode body) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, ByteBuffer.wrap(Json.bytes(body)), callback);
    }

    /**
     * Answers {@code error} in the shape of the API {@code path} belongs to: Anthropic's on its
     * Messages routes, OpenAI's everywhere else.
     */
    static void sendError(Response response, Callback callback, ApiError error, String path) {
        if (response.isCommitted()) {
            // Too late for a status: the stream's own error event was sent, or the client is gone.
            callback.failed(error);
            return;
        }
        if (error.status() == 503) {
            response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
        }
        sendJson(response, callback, error.status(), path.startsWith("/v1/messages") ? AnthropicMessages.error(error) : error.toJson());
    }
}
