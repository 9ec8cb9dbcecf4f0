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
 * <li>Every error is OpenAI-shaped ({@link forge.http.server.ApiError}). Once a stream has begun,
 *     an error is one final {@code data: {"error":...}} event followed by {@code data: [DONE]}.</li>
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
