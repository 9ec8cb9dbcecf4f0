/**
 * The OpenAI-compatible HTTP API on Jetty 12.
 *
 * <h2>Design</h2>
 * <ul>
 * <li>One Jetty core {@code Handler} routes by method and path; handlers run on virtual threads
 *     and block freely (reading the body, waiting for the engine's events). They never call native
 *     code: that belongs to the engine threads.</li>
 * <li>Requests are parsed into JSON trees and validated field by field: an invalid parameter is a
 *     400 naming it, and parameters accepted without effect are named in
 *     {@code X-Forge-Ignored-Params}.</li>
 * <li>One internal model, many wire formats at the edge: OpenAI chat completions, Anthropic
 *     Messages ({@code /v1/messages}) and OpenAI Responses ({@code /v1/responses}) each translate
 *     their body into one {@code ChatRequest} and run it on {@code ChatRun}, the one generation
 *     path (model, grammar, prompt rendered once, {@code max_tokens} fitted to the slot, choices,
 *     the template's parsed deltas, usage); each writes those events back in its own format: SSE
 *     event names and order, error shape, usage names. Nothing is copied between routes.</li>
 * <li>A door's own tool kinds map onto that one request: Responses' freeform {@code custom} tools
 *     ({@code CustomTools}) are offered as functions of one string, their Lark or regex grammar
 *     ({@code forge.runtime.grammar.LarkGrammar}) the rule of the call's JSON arguments inside the
 *     template's tool-call grammar, and their calls written back as {@code custom_tool_call} items;
 *     tool kinds no route runs (hosted search, MCP, ...) are dropped and named, never offered.</li>
 * <li>Context policy ({@code ContextFit}): a prompt that does not fit its slot is a 400
 *     {@code context_length_exceeded} before anything is generated; one that fits, with a
 *     {@code max_tokens} beyond the room left, generates until the slot is full and finishes with
 *     {@code length} ({@code max_tokens}, {@code incomplete}), the limit it ran with named in
 *     {@code X-Forge-Max-Tokens}; {@code --strict} keeps the 400.</li>
 * <li>Every error is an {@link forge.http.server.ApiError}, answered in OpenAI's shape, or in
 *     Anthropic's ({@code {"type":"error","error":{"type","message"}}}) on {@code /v1/messages}.
 *     Once a stream has begun, an error is the stream's own final event: OpenAI's
 *     {@code data: {"error":...}} then {@code data: [DONE]}, Anthropic's {@code error} event,
 *     Responses' {@code response.failed}.</li>
 * <li>Credentials: {@code Authorization: Bearer KEY} or {@code x-api-key: KEY}, on every route.
 *     The web UI's files ({@code WebUi}: {@code /}, {@code /assets/...}, and {@code index.html} for
 *     a page navigation to an unknown path that is no API route) are served without one, after the
 *     browser guard; the page then sends the key its user gave with every API call.</li>
 * <li>A client that disconnects cancels its generation; the engine frees the slot at its next step.
 *     A stream notices at its next write; a whole answer, which writes nothing until the end, is
 *     guarded by {@code ClientWatch}, which probes the connection while the handler waits (Jetty
 *     does not notice a close it is not reading).</li>
 * <li>{@code GET /slots} and {@code GET /props} (shaped like llama-server's) and {@code GET /metrics}
 *     (Prometheus text format, through the Prometheus Java client) read what the engines publish:
 *     no lock, nothing asked of an engine thread.</li>
 * </ul>
 *
 * {@snippet :
 * try (ForgeServer server = ForgeServer.start(ServerConfig.of("127.0.0.1", 0), catalog)) {
 *     URI chat = URI.create("http://127.0.0.1:" + server.port() + "/v1/chat/completions");
 * }
 * }
 */
package forge.http.server;
