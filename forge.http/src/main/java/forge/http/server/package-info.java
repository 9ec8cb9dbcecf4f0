/**
 * The OpenAI-compatible HTTP API on Jetty 12, with Anthropic's and Ollama's beside it.
 *
 * <h2>Design</h2>
 * <ul>
 * <li>Jetty core handlers, outermost first: {@code Edge} (counts the request in flight and in the
 *     metrics, holds its models loaded through the catalog's request scope, and answers every
 *     failure inside it); then Jetty wrappers, each a step that answers the request or lets it
 *     through: the browser guard then CORS (a preflight is answered there, before the key),
 *     draining (503 once shutdown began), the web UI's files, the API key; and {@code Router},
 *     which runs the action of the
 *     route table ({@code Routes}): each path with its methods, a 404 for a path it
 *     does not hold and a 405 naming the methods a path allows. Handlers run on virtual threads and
 *     block freely (reading the body, waiting for the engine's events). They never call native
 *     code: that belongs to the engine threads.</li>
 * <li>Each door owns its error shape: the table names the doors that own a subtree
 *     (Anthropic's {@code /v1/messages}: every refusal there, a 401 or a 404 included, is
 *     {@code {"type":"error","error":{"type","message"}}}; Ollama's {@code /api}: {@code {"error": "..."}});
 *     elsewhere OpenAI's. Once a stream has
 *     begun, an error is the stream's own final event: OpenAI's {@code data: {"error":...}} then
 *     {@code data: [DONE]}, Anthropic's {@code error} event, Responses' {@code response.failed},
 *     Ollama's last NDJSON line {@code {"error": "..."}}.</li>
 * <li>{@code GET /} and {@code HEAD /} are the web UI's page for a browser (an {@code Accept} that
 *     names HTML, as every page navigation sends) and Ollama's {@code Ollama is running} for any
 *     other client, which Ollama's clients probe for: neither takes the other's place.</li>
 * </ul>
 *
 * <h2>One request core behind every generating door</h2>
 * <ul>
 * <li><b>Reading.</b> A door's body is a {@code Fields}: the JSON object, which records each field
 *     its parser reads, with the run's context the reading needs (the plugin sampler stages a
 *     {@code samplers} may name). Every value is checked by {@code Params}, a refusal a 400 naming
 *     the field by its path in the door's own terms. What was never read had no effect: it is
 *     named in {@code X-Forge-Ignored-Params}, or refused under {@code --strict}. No door keeps a
 *     list of the fields it handles. A door marks what it reads yet ignores ({@code best_of}
 *     above 1, a hosted tool), and checks {@code user}, which only Responses uses, without
 *     reading it.</li>
 * <li><b>Translating.</b> OpenAI chat completions, Anthropic Messages ({@code /v1/messages}) and
 *     OpenAI Responses ({@code /v1/responses}) each turn their body into one {@code ChatRequest};
 *     OpenAI's generation fields are read once ({@code GenerationParams}, {@code SamplingChain}),
 *     tools by one reader ({@code Tools}) that each door calls with its own field paths
 *     ({@code tools[i].function.parameters}, {@code tools[i].parameters},
 *     {@code tools[i].input_schema}), so each door's errors name its own fields as written.
 *     {@code count_tokens} reads a body exactly as {@code /v1/messages} does. Ollama's
 *     {@code /api/chat} and {@code /api/generate} ({@code OllamaChat}) translate too: their
 *     messages into OpenAI's for the chat reader, their {@code options} read by
 *     {@code GenerationParams} as a nested body (so an unread option is named
 *     {@code options.NAME}), {@code format} into the grammar, {@code think} through
 *     {@code Thinking}; {@code raw} and {@code suffix} prompts run on {@code Run} as
 *     {@code /v1/completions} runs them, the same fill-in-the-middle ({@code Completions.infill}).
 *     {@code /api/embed} and {@code /api/embeddings} are the embedding core of
 *     {@code /v1/embeddings} ({@code Embeddings.embed}), {@code /api/pull} the hub pull of
 *     {@code /models/pull}.
 *     Images are read by
 *     one reader too ({@code Images}): OpenAI's {@code image_url} parts, Anthropic's {@code image}
 *     blocks, Responses' {@code input_image} and Ollama's {@code images} (base64 strings, their
 *     markers before the message's text, or the prompt's) each become a {@code forge.api.template.ChatImage}
 *     (its bytes, named by their SHA-256) with {@code ChatImage.MARKER} in the message's text where
 *     it was (and in the message as sent, which a model's own template reads), and the prompt lists
 *     the images in marker order; everything refusable without decoding (a URL, bad base64, an
 *     unknown format, a cut header, too many pixels by the header, too many images) is a 400 naming
 *     the field as the door wrote it. An {@code http(s)} image URL is refused (naming
 *     {@code --allow-image-urls}) unless the server allows image URLs; then {@code ImageFetcher}
 *     fetches it while the body is read (the request's {@code Fields} carry the server's fetcher),
 *     within {@code ImageUrls}' size and time limits, following a few redirects itself, each hop's
 *     host resolved and every address checked against the loopback, private and reserved
 *     networks (unless {@code --allow-image-url-net} names them) in the client's own address
 *     resolver, so the connection goes to the address that was checked. The fetched bytes are
 *     then checked as inline ones are. OpenAI chat's {@code input_audio} parts (base64 WAV or MP3)
 *     become the same media parts ({@code ChatImage.isAudio()}), checked from the container's
 *     header (format as declared, a length, at most 600 seconds); a model whose projector reads no
 *     audio refuses them in {@code ChatRun.prepare} ("has no audio projector"), as one without
 *     vision refuses images.
 *     {@code ChatRun.prepare} renders the prompt with the model's
 *     own template (which writes each marker where its image was) and has the model's projector
 *     split it into text and media chunks; a model without a projector refuses images there
 *     ("model X has no vision projector; give --mmproj"), and an image that does not decode is a
 *     400 too, before anything runs. The media embeddings count as prompt tokens in every door's
 *     usage and in {@code ContextFit}; the engine encodes each image (see {@code forge.runtime.engine}).
 *     The listings say {@code vision} (and {@code audio}) from one rule ({@code ModelCapabilities}).
 *     {@code /infill} ({@code Infill}) reads the same generation fields, lays its prompt out with
 *     the vocabulary's FIM tokens as llama-server does, runs on the same core and writes
 *     llama-server's own completion objects; its editor limits ({@code t_max_predict_ms},
 *     {@code n_indent}) end a sequence through {@code Run.stop}, a finish, not a departed client.
 *     {@code /v1/rerank} ({@code Rerank}) generates nothing: like {@code /v1/embeddings} it runs
 *     each query-document pair through the model's embedder (its rank head's score).</li>
 * <li><b>Running.</b> {@code Run} is the one core: a request's sequences ({@code n} choices of each
 *     prompt, a fixed seed giving each choice its own), submitted together or not at all, the
 *     client's departure cancelling them, the response's headers (ignored fields, the effective
 *     {@code max_tokens}), their events read whole (probing the client, {@code ClientWatch}) or
 *     merged as they happen with keep-alives while none comes, metrics and usage kept, a failure
 *     ending the run as an exception. {@code ChatRun} adds chat's part (the model's template
 *     renders the prompt once, the output's shape becomes a grammar, the prompt is fitted to the
 *     slot, each choice's text is parsed into deltas); {@code Completions} runs its prompts on the
 *     same core as they are. Each door then writes the events in its own wire format: SSE event
 *     names and order, usage names, finish reasons; Ollama's NDJSON lines with nanosecond durations.</li>
 * <li><b>LoRA adapters.</b> llama-server's per-request {@code lora} ({@code [{"id","scale"}]}) is
 *     read by {@code GenerationParams} (chat completions, completions) and by the Anthropic and
 *     Responses doors through their {@code Fields}, so it is validated and counted like every field,
 *     and resolved against the served model by {@code Lora}: the list, else the adapter the
 *     {@code model} id names (served as a model of its own), else the scales of
 *     {@code GET/POST /lora-adapters} ({@code LoraAdapters}). The engine never batches requests of
 *     different sets together.</li>
 * <li><b>A door's own tool kinds.</b> Responses' freeform {@code custom} tools
 *     ({@code CustomTools}), read in its {@code Tools.list} door, are offered as functions of one
 *     string, their Lark or regex grammar ({@code forge.lib.grammar.LarkGrammar}) the rule of
 *     the call's JSON arguments inside the template's tool-call grammar, and their calls written
 *     back as {@code custom_tool_call} items; a grammar the template cannot carry is named with the
 *     ignored fields ({@code ChatRun}). Tool kinds no route runs (hosted search, MCP, ...) are
 *     dropped, never offered: marked unused (so named in {@code X-Forge-Ignored-Params}, a 400
 *     under {@code --strict}) and in the response's {@code metadata.forge_dropped_tools}.</li>
 * <li><b>Writing.</b> One SSE writer ({@code SseWriter}: the stream's start, {@code data:} and
 *     named events, keep-alive comments, the end) and one id scheme ({@code Ids}: each kind's
 *     prefix, then random bits) for every door.</li>
 * </ul>
 *
 * <h2>Policies</h2>
 * <ul>
 * <li>Context policy ({@code ContextFit}): a prompt that does not fit its slot is a 400
 *     {@code context_length_exceeded} before anything is generated; one that fits, with a
 *     {@code max_tokens} beyond the room left, generates until the slot is full and finishes with
 *     {@code length} ({@code max_tokens}, {@code incomplete}), the limit it ran with named in
 *     {@code X-Forge-Max-Tokens}; {@code --strict} keeps the 400.</li>
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
