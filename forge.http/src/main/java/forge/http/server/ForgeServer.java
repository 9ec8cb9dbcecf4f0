package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.ForgeException;
import forge.api.TemplateException;
import forge.http.hub.HubPull;
import forge.runtime.catalog.AdapterFile;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.ModelUnavailableException;
import forge.runtime.engine.EngineException;
import forge.runtime.plugin.SamplerStages;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EofException;
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
    private final LoraAdapters loraAdapters;
    private final ApiKeys apiKeys;
    private final Completions completions;
    private final Embeddings embeddings;
    private final Infill infill;
    private final Rerank rerank;
    private final Tokenization tokenization;
    private final OllamaApi ollama;
    private final OllamaChat ollamaChat;
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
    private final AtomicInteger inFlight = new AtomicInteger();

    /** The plugin sampler stages a request's {@code samplers} may name. */
    private final SamplerStages stages;

    /** Fetches image URLs where {@code --allow-image-urls} allows them; null where it does not. */
    private final ImageFetcher imageFetcher;

    private ForgeServer(ServerConfig config, ModelCatalog catalog, SamplerStages stages) {
        this.stages = stages;
        this.config = config;
        this.catalog = catalog;
        this.metrics = new ForgeMetrics(catalog);
        this.info = new ServerInfo(catalog, stages);
        RunContext doors = new RunContext(catalog, metrics, config.keepAliveMillis());
        this.chat = new ChatCompletions(doors);
        this.messages = new AnthropicMessages(doors);
        this.responses = new Responses(doors, new ResponseStore());
        this.apiKeys = new ApiKeys(config.apiKeys());
        this.completions = new Completions(doors);
        this.embeddings = new Embeddings(catalog);
        this.infill = new Infill(doors);
        this.rerank = new Rerank(catalog);
        this.tokenization = new Tokenization(catalog);
        this.cors = new CorsPolicy(config.corsOrigins());
        this.browsers = new BrowserGuard(cors, config.host(), config.allowedHosts());
        this.templates = new TemplatesApi(catalog);
        this.modelsApi = new ModelsApi(catalog);
        this.ollama = new OllamaApi(catalog, embeddings, modelsApi);
        this.ollamaChat = new OllamaChat(doors);
        this.loraAdapters = new LoraAdapters(catalog);
        QueuedThreadPool pool = new QueuedThreadPool();
        pool.setName("forge-http");
        // Handlers block (reading bodies, waiting for tokens): virtual threads make that cheap.
        // Native calls never happen on them; they belong to the engine threads.
        pool.setVirtualThreadsExecutor(Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name("forge-request-", 0).factory()));
        server = new Server(pool);
        this.imageFetcher = config.imageUrls().allowed() ? new ImageFetcher(config.imageUrls()) : null;
        if (imageFetcher != null) {
            server.addBean(imageFetcher.lifeCycle()); // its client starts and stops with the server
        }
        connector = new ServerConnector(server);
        connector.setHost(config.host());
        connector.setPort(config.port());
        // A whole (non-streaming) answer writes nothing until it is done, and a long prefill on a CPU
        // can take minutes: Jetty's 30 s default would cut such requests. llama-server waits 600 s.
        connector.setIdleTimeout(IDLE_TIMEOUT_MS);
        server.addConnector(connector);
        server.setHandler(new Edge(before(
                this::guard,
                before(
                        this::drain,
                        before(this::loadingHealth, before(this::page, before(this::key, new Router())))))));
        server.setErrorHandler(new JsonErrorHandler());
        server.setStopTimeout(5_000);
    }

    /** Starts listening. */
    public static ForgeServer start(ServerConfig config, ModelCatalog catalog) {
        return start(config, catalog, SamplerStages.NONE);
    }

    /** Starts listening; a request's {@code samplers} may name the plugin stages of {@code stages}. */
    public static ForgeServer start(ServerConfig config, ModelCatalog catalog, SamplerStages stages) {
        return start(config, catalog, stages, CompletableFuture.completedFuture(null));
    }

    /**
     * Starts listening while {@code loading} (the start-up's model loads) runs: until it completes,
     * {@code /health} answers 503 "Loading model" as llama-server's does, and requests wait for
     * their model as they would for any load.
     */
    public static ForgeServer start(
            ServerConfig config, ModelCatalog catalog, SamplerStages stages, CompletableFuture<?> loading) {
        ForgeServer s = new ForgeServer(config, catalog, stages);
        s.loading = loading;
        try {
            s.server.start();
        } catch (Exception e) {
            throw new ForgeException(
                    "cannot listen on " + config.host() + ":" + config.port() + ": " + e.getMessage(), e);
        }
        LOG.info("listening on http://{}:{}", config.host(), s.port());
        return s;
    }

    /** Lets {@code POST /models/pull} pull from {@code hub} into its cache (off until called). */
    public void usePull(HubPull hub) {
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
    public int drain(Duration grace) throws InterruptedException {
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

    /** The API: each path's action by method, and the doors that own an error shape. */
    private static final Routes<ForgeServer> ROUTES = new Routes<ForgeServer>()
            .get("/health", ForgeServer::health)
            .get("/v1/models", (s, x) -> sendJson(x, 200, s.models()))
            .under("GET", "/v1/models/", false, ForgeServer::model)
            .get("/models", (s, x) -> sendJson(x, 200, s.modelsApi.list()))
            .post("/models/load", (s, x) -> sendJson(x, 200, s.modelsApi.load(s.modelBody(x))))
            .post("/models/unload", (s, x) -> sendJson(x, 200, s.modelsApi.unload(s.modelBody(x))))
            .post("/models/pull", (s, x) -> s.modelsApi.pull(s.modelBody(x), x.response(), x.callback()))
            .get(
                    "/lora-adapters",
                    (s, x) -> sendJson(
                            x, 200, s.loraAdapters.list(modelParam(x.request()).orElse(""))))
            .post(
                    "/lora-adapters",
                    (s, x) -> sendJson(
                            x,
                            200,
                            s.loraAdapters.set(
                                    modelParam(x.request()).orElse(""), Json.parseValue(s.readBody(x.request())))))
            .get("/slots", (s, x) -> sendJson(x, 200, s.info.slots(modelParam(x.request()))))
            .get("/props", (s, x) -> sendJson(x, 200, s.info.props(modelParam(x.request()))))
            .get("/metrics", (s, x) -> {
                x.response().setStatus(200);
                x.response().getHeaders().put(HttpHeader.CONTENT_TYPE, s.metrics.contentType());
                x.response().write(true, ByteBuffer.wrap(s.metrics.scrape()), x.callback());
            })
            .post("/v1/chat/completions", (s, x) -> {
                ChatRequest chat = ChatRequest.parse(s.fields(x));
                Strictness.check(s.config.strict(), chat.ignored());
                s.chat.handle(chat, s.config.strict(), x.request(), x.response(), x.callback());
            })
            .post(
                    "/v1/completions",
                    (s, x) -> s.completions.handle(
                            s.fields(x), s.config.strict(), x.request(), x.response(), x.callback()))
            .door("/v1/messages", AnthropicMessages::error)
            .post(
                    "/v1/messages",
                    (s, x) ->
                            s.messages.handle(s.fields(x), s.config.strict(), x.request(), x.response(), x.callback()))
            .post(
                    "/v1/messages/count_tokens",
                    (s, x) -> sendJson(x, 200, s.messages.countTokens(s.fields(x), s.config.strict())))
            .post(
                    "/v1/responses",
                    (s, x) ->
                            s.responses.handle(s.fields(x), s.config.strict(), x.request(), x.response(), x.callback()))
            .under(
                    "GET",
                    "/v1/responses/",
                    true,
                    (s, x) -> sendJson(x, 200, s.responses.get(x.path().substring("/v1/responses/".length()))))
            .under(
                    "DELETE",
                    "/v1/responses/",
                    true,
                    (s, x) -> sendJson(x, 200, s.responses.delete(x.path().substring("/v1/responses/".length()))))
            .post(
                    "/v1/embeddings",
                    (s, x) -> s.embeddings.handle(s.fields(x), s.config.strict(), x.response(), x.callback()))
            .post(
                    "/infill",
                    (s, x) -> s.infill.handle(s.fields(x), s.config.strict(), x.request(), x.response(), x.callback()))
            .post("/v1/rerank", ForgeServer::rerank)
            .post("/rerank", ForgeServer::rerank)
            .post("/v1/reranking", ForgeServer::rerank)
            .post("/tokenize", (s, x) -> sendJson(x, 200, s.tokenization.tokenize(s.modelBody(x))))
            .post("/detokenize", (s, x) -> sendJson(x, 200, s.tokenization.detokenize(s.modelBody(x))))
            .get("/v1/templates", (s, x) -> sendJson(x, 200, s.templates.list()))
            .post("/apply-template", (s, x) -> sendJson(x, 200, s.templates.apply(s.modelBody(x))))
            // Ollama's API (OllamaApi, OllamaChat): every refusal under /api in its {"error": "..."}.
            .door("/api", OllamaApi::error)
            .get("/api/version", (s, x) -> sendJson(x, 200, s.ollama.version()))
            .get("/api/tags", (s, x) -> sendJson(x, 200, s.ollama.tags()))
            .get("/api/ps", (s, x) -> sendJson(x, 200, s.ollama.ps()))
            .post("/api/show", (s, x) -> sendJson(x, 200, s.ollama.show(s.modelBody(x), s.config.strict())))
            .post(
                    "/api/chat",
                    (s, x) ->
                            s.ollamaChat.chat(s.fields(x), s.config.strict(), x.request(), x.response(), x.callback()))
            .post(
                    "/api/generate",
                    (s, x) -> s.ollamaChat.generate(
                            s.fields(x), s.config.strict(), x.request(), x.response(), x.callback()))
            .post("/api/embed", (s, x) -> sendJson(x, 200, s.ollama.embed(s.fields(x), s.config.strict())))
            .post("/api/embeddings", (s, x) -> sendJson(x, 200, s.ollama.embeddings(s.fields(x), s.config.strict())))
            .post("/api/pull", (s, x) -> s.ollama.pull(s.modelBody(x), x.response(), x.callback()));

    /** {@code /v1/rerank} and llama-server's other names of it. */
    private static void rerank(ForgeServer s, Routes.Exchange x) {
        s.rerank.handle(s.fields(x), s.config.strict(), x.response(), x.callback());
    }

    /** The request attribute holding the request's {@link ModelCatalog.RequestScope}. */
    private static final String SCOPE = "forge.scope";

    /**
     * The outermost handler: counts the request (in flight; in the metrics once its last byte is
     * written, or as 499 when the client is gone), holds the models it is served by loaded
     * (ModelCatalog's request scope), and answers every failure of the handlers inside it in the
     * error shape of the door its path belongs to.
     */
    private final class Edge extends Handler.Wrapper {
        Edge(Handler inner) {
            super(inner);
        }

        @Override
        public boolean handle(Request request, Response response, Callback done) {
            String path = Request.getPathInContext(request);
            String method = request.getMethod();
            long start = System.nanoTime();
            boolean counted = !"/health".equals(path) && !"/metrics".equals(path);
            if (counted) {
                inFlight.incrementAndGet();
            }
            Callback callback = new Callback.Nested(done) {
                private final AtomicBoolean over = new AtomicBoolean();

                @Override
                public void succeeded() {
                    metrics.request(path, response.getStatus(), System.nanoTime() - start);
                    end();
                    super.succeeded();
                }

                @Override
                public void failed(Throwable x) {
                    boolean clientGone =
                            x instanceof EofException || (response.isCommitted() && !(x instanceof ApiError));
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
            Routes.ErrorShape shape = ROUTES.shape(path);
            try (ModelCatalog.RequestScope scope = catalog.requestScope()) {
                request.setAttribute(SCOPE, scope);
                super.handle(request, response, callback);
            } catch (ApiError e) {
                if (request.getAttribute(BODY_READ) == null && hasBody(request)) {
                    // Refused before its body was read (401, 413, 404 route, 405): the unread bytes make
                    // the connection unusable, so say so rather than let a client reuse it and fail.
                    response.getHeaders().put(HttpHeader.CONNECTION, "close");
                }
                sendError(response, callback, e, shape);
            } catch (ModelUnavailableException e) {
                sendError(response, callback, ModelsApi.error(e), shape);
            } catch (TemplateException e) {
                sendError(response, callback, ApiError.badRequest("messages", e.getMessage()), shape);
            } catch (EngineException e) {
                sendError(response, callback, ApiError.of(e), shape);
            } catch (Exception | StackOverflowError e) {
                // A bug: the details go to the log under an id the client is given, not to the client.
                String incident = Ids.next("");
                LOG.error("{} {} failed (incident {})", method, path, incident, e);
                sendError(
                        response,
                        callback,
                        new ApiError(
                                500,
                                "server_error",
                                "internal_error",
                                null,
                                "internal error; the server's log has the details under incident " + incident),
                        shape);
            } catch (OutOfMemoryError e) {
                // An incident: this request fails; what it held is garbage now, and every engine keeps
                // its own state (an engine thread that died refuses new work and says so).
                LOG.error(
                        "{} {}: the JVM ran out of memory (max heap {} MiB)",
                        method,
                        path,
                        Runtime.getRuntime().maxMemory() >> 20,
                        e);
                sendError(
                        response,
                        callback,
                        new ApiError(
                                503,
                                "server_error",
                                "out_of_memory",
                                null,
                                "the server ran out of memory for this request; retry later or with a smaller request"),
                        shape);
            }
            return true;
        }
    }

    /** One of the handlers between the edge and the router: it answers the request, or lets it through. */
    private interface Step {
        /** Whether this step answered the request (a refusal is thrown). */
        boolean answered(Request request, Response response, Callback callback) throws Exception;
    }

    /** A Jetty wrapper that runs {@code step} before {@code inner}. */
    private static Handler before(Step step, Handler inner) {
        return new Handler.Wrapper(inner) {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                return step.answered(request, response, callback) || super.handle(request, response, callback);
            }
        };
    }

    /**
     * The browser guard, before anything else, preflights included (a page of another site gets
     * nothing to run), then CORS: a preflight is answered here, before the key check, since it
     * carries no credentials; every other response gets its CORS headers.
     */
    private boolean guard(Request request, Response response, Callback callback) {
        String origin = request.getHeaders().get(HttpHeader.ORIGIN);
        browsers.check(request.getHeaders().get(HttpHeader.HOST), origin);
        if ("OPTIONS".equals(request.getMethod())) {
            cors.preflight(
                    origin, request.getHeaders().get(HttpHeader.ACCESS_CONTROL_REQUEST_HEADERS), response.getHeaders());
            response.setStatus(204);
            callback.succeeded();
            return true;
        }
        cors.decorate(origin, response.getHeaders());
        return false;
    }

    /** Once shutdown began: 503 for new work, and {@code /health} says {@code draining}. */
    private boolean drain(Request request, Response response, Callback callback) {
        if (!draining) {
            return false;
        }
        if ("/health".equals(Request.getPathInContext(request))) {
            sendJson(response, callback, 503, Json.MAPPER.createObjectNode().put("status", "draining"));
            return true;
        }
        throw new ApiError(
                503,
                "server_error",
                "shutting_down",
                null,
                "the server is shutting down; retry on another instance or after it restarts");
    }

    /**
     * The web UI's files, before the key check: the page asks for the key that its API calls then
     * carry. {@code GET /} and {@code HEAD /} are the page for a browser (its {@code Accept} names
     * HTML); any other client gets Ollama's "Ollama is running", which Ollama's clients probe for,
     * so the page keeps its place and those clients find the server.
     */
    private boolean page(Request request, Response response, Callback callback) {
        String path = Request.getPathInContext(request);
        String accept = request.getHeaders().get(HttpHeader.ACCEPT);
        String method = request.getMethod();
        if (path.equals("/")
                && ("GET".equals(method) || "HEAD".equals(method))
                && (accept == null || !accept.toLowerCase(Locale.ROOT).contains("text/html"))) {
            OllamaApi.running(method, response, callback);
            return true;
        }
        Optional<WebUi.Asset> page = webUi.resolve(method, path, accept);
        page.ifPresent(asset -> WebUi.send(asset, request, response, callback));
        return page.isPresent();
    }

    /** The API key, on every route but {@code /health}. */
    private boolean key(Request request, Response response, Callback callback) {
        if (!"/health".equals(Request.getPathInContext(request))) {
            apiKeys.check(
                    request.getHeaders().get(HttpHeader.AUTHORIZATION),
                    request.getHeaders().get("x-api-key"));
        }
        return false;
    }

    /** The route table's action for the request. */
    private final class Router extends Handler.Abstract {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            ROUTES.dispatch(
                    ForgeServer.this,
                    request.getMethod(),
                    new Routes.Exchange(
                            request,
                            response,
                            callback,
                            (ModelCatalog.RequestScope) request.getAttribute(SCOPE),
                            Request.getPathInContext(request)));
            return true;
        }
    }

    /**
     * llama-server's answer to {@code /health} while it loads its model, encoded once: clients poll
     * {@code /health} every few milliseconds while the start-up's models load (bench/run.sh polls
     * every 5 ms), and each answer's CPU time is taken from the load's own threads.
     */
    private static final byte[] LOADING_HEALTH;

    static {
        ObjectNode body = Json.MAPPER.createObjectNode().put("status", "loading");
        body.putObject("error").put("code", 503).put("message", "Loading model").put("type", "unavailable_error");
        LOADING_HEALTH = Json.bytes(body);
    }

    /**
     * {@code GET /health} while the start-up's models load, answered right after the browser guard
     * and the drain check: the web UI, the key check (which {@code /health} skips) and the route
     * table have nothing to add to it, and it is the request a starting server gets most often.
     */
    private boolean loadingHealth(Request request, Response response, Callback callback) {
        if (loading.isDone()
                || !"GET".equals(request.getMethod())
                || !"/health".equals(Request.getPathInContext(request))) {
            return false;
        }
        response.setStatus(503);
        response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, ByteBuffer.wrap(LOADING_HEALTH), callback);
        return true;
    }

    /** {@code GET /health} once the start-up's models are loaded ({@link #loadingHealth} before): the engines' state. */
    private void health(Routes.Exchange x) {
        ObjectNode health = info.health();
        boolean ok = "ok".equals(health.get("status").asText());
        if (!ok) {
            x.response().getHeaders().put(HttpHeader.RETRY_AFTER, "1");
        }
        sendJson(x, ok ? 200 : 503, health);
    }

    /** {@code GET /v1/models/ID}: the model under the name asked for. */
    private void model(Routes.Exchange x) {
        String id = x.path().substring("/v1/models/".length());
        ModelEntry entry = catalog.find(id).orElseThrow(() -> unknownModel(id));
        sendJson(
                x,
                200,
                model(
                        entry,
                        entry.descriptor().names().stream()
                                .filter(n -> n.equals(id))
                                .findFirst()
                                .orElse(entry.id())));
    }

    /** Whether {@code path} belongs to the API: never answered with the web UI's page, even to a browser. */
    static boolean apiPath(String path) {
        return ROUTES.holds(path)
                || path.equals("/v1")
                || path.startsWith("/v1/")
                || path.startsWith("/models/")
                || path.startsWith("/api/");
    }

    /** The optional {@code ?model=} of {@code /slots} and {@code /props}. */
    private static Optional<String> modelParam(Request request) {
        return Optional.ofNullable(Request.extractQueryParameters(request).getValue("model"))
                .filter(m -> !m.isBlank());
    }

    static ApiError unknownModel(String id) {
        return ApiError.notFound("model_not_found", "the model '" + id + "' does not exist");
    }

    /** Set on a request once its body has been read in full. */
    private static final String BODY_READ = "forge.bodyRead";

    private static boolean hasBody(Request request) {
        return request.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH) > 0
                || request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
    }

    /** Reads the whole body, refusing more than the limit with 413 before reading it all. */
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
    private JsonNode modelBody(Routes.Exchange x) {
        JsonNode body = Json.parse(readBody(x.request()));
        ModelsApi.keepAlive(body, x.scope());
        return body;
    }

    /** A generating door's body, to be read by its parser with this server's sampler stages. */
    private Fields fields(Routes.Exchange x) {
        return Fields.of(modelBody(x), stages, imageFetcher);
    }

    private ApiError tooLarge() {
        return new ApiError(
                413,
                "invalid_request_error",
                "request_too_large",
                null,
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
            // Each adapter is a model of its own (the base with it at scale 1), listed as vLLM lists
            // one: its parent the base model, its root the adapter's file.
            for (AdapterFile a : e.adapters()) {
                ObjectNode m = model(e, e.id());
                m.put("id", a.id());
                m.putArray("aliases");
                m.put("parent", e.id());
                m.put("root", a.path().toString());
                m.putObject("lora")
                        .put("id", e.adapterNamed(a.id()).orElseThrow())
                        .put("path", a.path().toString());
                data.add(m);
            }
        }
        return list;
    }

    /** The model as {@code /v1/models} lists it under {@code name}, its id or an alias. */
    private ObjectNode model(ModelEntry e, String name) {
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
        e.served()
                .flatMap(s -> s.template().unusable())
                .ifPresent(why -> m.withObjectProperty("template").put("error", why));
        e.descriptor().metadata().architecture().ifPresent(a -> m.put("architecture", a));
        m.set("status", ModelsApi.status(e));
        m.put("loaded", e.served().isPresent());
        // What a client may ask of it: every model chats and embeds (mean-pooled when it has no
        // pooling of its own).
        ArrayNode capabilities =
                m.putArray("capabilities").add("chat").add("completions").add("embeddings");
        // Tool calls: in the template's own syntax, or the generic format (ModelCapabilities), which
        // --strict does not offer; the format is known once the model is loaded.
        if (ModelCapabilities.tools(e, config.strict())) {
            capabilities.add("tools");
        }
        ModelCapabilities.toolFormat(e, config.strict()).ifPresent(f -> m.put("tool_format", f.wire()));
        // A rank head is in the file's metadata; fill-in-the-middle tokens are known once loaded.
        if (Rerank.ranks(e.descriptor().metadata())) {
            capabilities.add("rerank");
        }
        e.served().filter(s -> s.vocabulary().fim().isPresent()).ifPresent(s -> capabilities.add("infill"));
        if (ModelCapabilities.vision(e)) {
            capabilities.add("vision");
        }
        if (ModelCapabilities.audio(e)) {
            capabilities.add("audio");
        }
        return m;
    }

    static void sendJson(Response response, Callback callback, int status, JsonNode body) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, ByteBuffer.wrap(Json.bytes(body)), callback);
    }

    private static void sendJson(Routes.Exchange x, int status, JsonNode body) {
        sendJson(x.response(), x.callback(), status, body);
    }

    /** Answers {@code error} in {@code shape}, the shape of the door the request is for. */
    private static void sendError(Response response, Callback callback, ApiError error, Routes.ErrorShape shape) {
        if (response.isCommitted()) {
            // Too late for a status: the stream's own error event was sent, or the client is gone.
            callback.failed(error);
            return;
        }
        if (error.status() == 503) {
            response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
        }
        sendJson(response, callback, error.status(), shape.apply(error));
    }
}
