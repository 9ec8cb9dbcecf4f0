/**
 * The inference engine: continuous batching of many sequences over one model's context.
 *
 * <h2>Design</h2>
 * <ul>
 * <li><b>One platform thread per engine</b> ({@code forge-engine-<model>}) creates the
 *     {@link forge.api.backend.InferenceContext}, owns it and every sampler, and is the only
 *     thread that makes native calls on them: {@code llama_decode} can take long and must not pin
 *     a virtual thread. It is also the only thread that touches slot state, so the slots need no
 *     locks.</li>
 * <li><b>Requests talk to it through queues.</b> {@link forge.runtime.engine.Engine#submit} checks
 *     the context contract (prompt plus {@code max_tokens} must fit a slot: refused before anything
 *     is generated) and the bounded admission queue, then enqueues. Events flow back through the
 *     {@link forge.runtime.engine.Generation}'s own lock-free queue, which the engine thread offers
 *     to without blocking; a request's virtual thread takes from it. A consumer that writes the
 *     answer whole ({@code deferText}) is not woken per token: on two cores each wake-up cost the
 *     engine thread 0.1 to 0.8 ms.</li>
 * <li><b>Slots</b>: {@code --parallel N} sequence ids, each with its own KV stream of an equal
 *     share of {@code --ctx-size} cells, or all of them sharing one pool (below). A slot is free,
 *     prefilling (or waiting, see below), or decoding.</li>
 * <li><b>One KV pool for all slots</b> ({@code --kv-unified}, {@code EngineConfig.kvUnified}; the
 *     context is made with llama.cpp's {@code kv_unified} and {@code n_ctx} the total, as
 *     llama-server's default {@code -np auto}): a request may fill all of the context that the
 *     others leave, so one long agent prompt and an autocomplete run side by side.
 *     <ul>
 *     <li><i>Who owns cells</i>: a slot owns the cells of its sequence, positions
 *         {@code [0, cached)} plus the batch in flight ({@code Slot.held()}); a running slot's are its
 *         request's, an idle slot's are its retained prefix. llama.cpp keeps no count a caller can
 *         read (only {@code llama_memory_seq_pos_min/max} per sequence, a range, not the cells of a
 *         prefix two sequences share), so the scheduler keeps its own: the pool's used cells are the
 *         sum of the slots' held cells. A prefix copied into a slot is counted for both though the
 *         pool tags the same cells, so the count is an upper bound of what llama.cpp holds: a decode
 *         the count allows always finds its cells (llama.cpp's unified {@code find_slot} needs free
 *         cells, not contiguous ones).</li>
 *     <li><i>Admission</i>: a request whose prompt plus one token exceeds the whole context is
 *         refused at {@code submit} with the context error (400: it could never run). One that fits
 *         the context but not what the running requests hold now (idle slots' cells count as free)
 *         is refused when it would start, with {@code UNAVAILABLE} (503 and {@code Retry-After}: it
 *         would fit once others finish), taking no slot and making no sampler.</li>
 *     <li><i>Each step</i>: every request decoding this step needs a cell for its token. When the
 *         pool has too few, idle slots' cells are evicted, least recently used first; each is first
 *         offered to the host prompt cache ({@code saveBeforeReplacing}), so a prefix evicted from
 *         the pool can come back from host memory. When no idle cells are left, the request admitted
 *         last ends with {@code UNAVAILABLE} (its cells go back to the pool) until the rest fit: the
 *         requests that came first keep going. Drafts take only free cells, never an idle slot's
 *         (a guess is worth less than a prefix). Prefill takes what the batch and the pool leave,
 *         evicting idle slots for it, less one cell per decoding request (the cell its next token
 *         needs). When nothing can move (no request decodes and no prompt gets a cell), the newest
 *         ends with 503, so the pool never deadlocks.</li>
 *     <li><i>Cells come back</i> when a request's rejected draft tokens are removed, when a request
 *         fails (its cells are dropped), and when an idle slot is evicted. A finished request's cells
 *         stay as its slot's prefix until a request needs the room, so the prefix cache keeps working
 *         while there is room.</li>
 *     <li><i>A failed decode for lack of cells</i> ({@code llama_decode} returning 1, which
 *         llama-server answers by purging idle slots and halving its batch) cannot happen while the
 *         count is an upper bound; should it happen anyway (a memory that counts otherwise, such as
 *         a sliding window's), it is handled as any failed decode: the requests of that batch fail
 *         and their cells are dropped, the others go on, nothing crashes.</li>
 *     <li><i>The draft model's context</i> is made the same way (one pool, the same size). Its
 *         sequences mirror the target's slots; an evicted slot's draft sequence is forgotten with
 *         it. A draft decode that finds no room drafts nothing that step (as any failed draft
 *         decode).</li>
 *     <li><i>The host prompt cache</i> works as before: a sequence's saved state holds its cells
 *         and their positions, not the layout, so llama.cpp reads it into a pool as into a stream;
 *         the key's cells per slot (the whole context, in a pool) and slots keep states to contexts
 *         of the same sizes. A restore first evicts idle slots for the whole saved state, which
 *         llama.cpp restores before the tail is dropped.</li>
 *     </ul>
 *     </li>
 * <li><b>One decode per step</b>: the next token of every decoding slot, then prompt tokens of
 *     prefilling slots until the batch is full (chunked prefill, so a long prompt never stalls
 *     the others). Logits are requested only where a token will be sampled (and at every prompt
 *     position of a request that scores its prompt); each slot samples with its own native sampler
 *     chain.</li>
 * <li><b>Text</b>: token bytes pass through a {@code Utf8Accumulator} (never half a character)
 *     and a {@code StopMatcher} (stop strings matched across tokens, never emitted, possible
 *     partial matches held back). End-of-generation tokens and the template's end-of-turn tokens
 *     end the sequence.</li>
 * <li><b>Prefix cache</b>: every slot remembers the tokens its KV cells hold, and keeps them after
 *     a request ends or is cancelled. A request goes to the free slot whose cells share the longest
 *     prefix with its prompt (least recently used among equals); when another slot, busy or not,
 *     holds a longer prefix, it is copied with {@code llama_memory_seq_cp}, replacing the slot's
 *     own cells; only the rest is prefilled. With a KV stream per slot (as llama-server's slots with
 *     {@code -np N --no-kv-unified}) the copy moves the source stream's buffers (a memory copy at the
 *     next decode, milliseconds, against seconds of prefill) and the target then drops what lies
 *     past the prefix. In one pool the copy only tags the cells for the target too, but every
 *     decode's attention spans the cells of all slots: measured with llama-bench on the benchmark
 *     model, decoding at depth 1024 instead of 0 costs 15% of the tokens per second. The prompt's last token is always
 *     computed, for its logits; a scored prompt takes nothing from a cache. A request whose
 *     prompt shares a longer prefix with one another slot is still prefilling waits for that slot
 *     to compute it and then copies it, when the tokens saved are at least half of what that slot
 *     still computes ({@code PrefixWait.worthWaiting}; a wait costs a whole step): requests that
 *     arrive together with one system prompt compute it once (llama-server computes it once per
 *     slot). The wait ends when the leader holds the awaited cells or moves on (decodes, or its
 *     request ends); the request then takes what cache there is, without waiting again. Positions
 *     stay {@code 0..k-1}, so copied cells are exactly what the slot would have computed.</li>
 * <li><b>A prompt cache beyond the slots</b> ({@code --cache-ram}, as llama-server's): when a
 *     request is about to replace a slot's cells and keeps less than half of them (and they are
 *     at least {@code PromptCache.MIN_TOKENS}), the slot's sequence state is saved first
 *     ({@code InferenceContext.saveSequence}, llama.cpp's {@code llama_state_seq_get_data_ext}) into
 *     the process's {@code PromptCache}, a host-memory cache bounded in bytes. A request whose
 *     prompt's longest prefix over every entry (not only exact matches) is longer than any slot's
 *     restores that entry into its slot ({@code restoreSequence}, {@code _set_data_ext}), drops
 *     what lies past the prefix, and prefills only the rest: the {@code Restore} plan. Entries go
 *     least recently used first once the limit is reached, and an entry that a newer, longer one
 *     starts with goes at once. Each entry carries the {@code PromptCache.Key} it was saved under
 *     (the model file's path, size, modification time and header hash; cells per slot, slots, KV
 *     type, flash attention) and is only offered to an engine of the same key: a state is never
 *     restored into a context of other settings or another model; a state the backend refuses is
 *     computed instead. When the engine closes (shutdown, unload) each slot's cells are saved the
 *     same way, so that the conversations still in the slots survive a restart with a disk cache.
 *     {@code cached_tokens} counts restored tokens; the snapshot counts saves, restores and restored
 *     tokens. {@code PromptCacheStore} ({@code --prompt-cache-dir}) mirrors the entries to files,
 *     written and deleted on a thread of its own, and reads a model's entries back before its
 *     engine starts; a file damaged, truncated, or saved from another identity of the model file
 *     or other settings is deleted unread.</li>
 * <li><b>LoRA adapters</b>: a request carries the set of its model's adapters it applies, each
 *     at its scale ({@code GenerationRequest.adapters}; scale 0 is left out, so it equals no
 *     adapter). One decode applies one set to all its tokens ({@code InferenceContext.adapters},
 *     llama.cpp's {@code llama_set_adapters_lora}, set before each decode and a no-op when
 *     unchanged), so a step decodes the requests of one set only: the set of the first request with
 *     work after the slot that chose last, so that sets take turns (in proportion to their
 *     requests) and none starves; requests of one set still share every decode. As llama-server's
 *     {@code can_batch_with}, requests of different sets are never batched together. A slot
 *     remembers the set its cells were computed with ({@code Slot.adapters}), and to a request of
 *     another set its cells are no prefix: the cache policy sees them as empty (and a request of
 *     another set as no leader to wait for), so they are neither kept, nor copied, nor waited for.
 *     The host prompt cache keeps only states computed without adapters, and a request with
 *     adapters restores none: an adapter's identity does not outlive the process, so a saved state
 *     could not say which set computed it. The snapshot names the adapters of the running requests,
 *     the engine those of the queued ones ({@code waitingAdapters}), for vLLM's LoRA gauge. The
 *     adapters themselves belong to the model, not the engine: loaded with it and freed with it,
 *     after the engine's context is closed.</li>
 * <li><b>Media (images) in the prompt</b>, as llama-server runs libmtmd. <i>Representation</i>: a
 *     request with images carries a {@code forge.api.backend.MediaTokens} ({@code GenerationRequest.media}):
 *     the projector's split of the rendered prompt into text and media chunks, and one token list in
 *     which each media chunk is a run of negative placeholder ids, one per embedding, derived from
 *     the image's SHA-256. So every part of the engine that compares tokens (slot choice, the
 *     {@code PrefixPlan}, the host prompt cache and its disk entries) compares an image by its content,
 *     as llama-server's {@code server_tokens} compares chunk ids, and counts its embeddings as prompt
 *     tokens (usage, the context check). A prompt never ends with media (its last token's logits are
 *     sampled), and a media chunk is decoded whole, so a slot's cells never hold part of one and a
 *     prefix match never ends inside one. <i>Cells and positions</i>: a projector that places images
 *     by M-RoPE (Qwen2-VL, Qwen2.5-VL, Qwen3-VL: libmtmd's {@code mtmd_decode_use_mrope}) decodes an
 *     image of {@code w x h} merged patches into {@code w * h} embeddings, each a KV cell, all at the
 *     chunk's first position in the sequential dimension (libmtmd lays out the 2-D ones), and the
 *     text after it starts {@code max(w, h)} positions later ({@code Span.positions()},
 *     {@code mtmd_input_chunk_get_n_pos}); llama.cpp expands a text token's one position to all of
 *     M-RoPE's dimensions and wants positions to grow. So everything the engine counts stays in
 *     cells (a slot's tokens, {@code cached}, the prefix plans, the KV pool's count, the context
 *     check, usage: KV capacity is cells), and every native call that takes a position gets the
 *     slot's position of that cell ({@code Slot.position(cell)}): a batch's positions, the start
 *     of a media decode, {@code removeTokens} (a Keep's tail, a restored entry's tail, rejected
 *     drafts), {@code copySequence}'s end. A cut at cell {@code k} removes the cells at positions
 *     from {@code position(k)} on, which are exactly cells {@code k} and after, since a cut never
 *     falls inside a chunk and an image's cells share a position below the next chunk's. The slot
 *     keeps, for each cell, the position after it ({@code ends}), written as cells are appended (a
 *     text token: one more; a chunk's last cell: its first position plus its positions) and copied
 *     with the tokens when a prefix is copied, so text costs an array write and no allocation, and a
 *     model without M-RoPE (positions equal cells) pays nothing else. Equal placeholders are equal
 *     images with equal positions, so cells a slot keeps for a later request are laid out as that
 *     request's own prompt would be. A host cache entry keeps only tokens (its state keeps the
 *     native positions): a restored slot's positions are laid out from the restoring request's
 *     media ({@code Slot.restore}), right for every cell it keeps, which are a prefix of its prompt.
 *     A request with media does not draft, so drafts never meet a cell whose position differs.
 *     <i>Decoding</i>: the prefill loop stops at
 *     a chunk's first placeholder; once the slot has no tokens in the step's batch (the text before it
 *     is in the cache), the engine thread encodes the chunk and decodes its embeddings into the slot's
 *     sequence ({@code InferenceContext.decodeMedia}: libmtmd's {@code mtmd_helper_eval_chunk_single},
 *     in a decode of its own, before the step's batch, through the {@code ComputeGate} as a decode),
 *     then prefill goes on after it. A chunk whose cells a slot or the host cache holds already is never
 *     encoded: the snapshot counts encodes ({@code mediaEncodes}) and their embeddings. A failure to
 *     encode fails that request alone and drops its cells. A request with media does not speculate
 *     (a draft cannot propose placeholders). <i>Lifecycle</i>: the request's thread makes the chunks
 *     ({@code LoadedModel.media}, on its own thread: images are decoded and preprocessed there, not on
 *     the engine's) and holds one reference; each admitted {@code Generation} takes one more, dropped
 *     with its {@code Done} or {@code Failed} event (after the engine's last use of them); the route
 *     drops its own once every choice is submitted, so whichever is last frees the native chunks, never
 *     while the engine thread encodes. The host cache's key names the projector too (path, size, time,
 *     first bytes), since a saved image's cells are that projector's encoding of it.</li>
 * <li><b>Snapshots</b>: the engine thread publishes an immutable
 *     {@link forge.runtime.engine.EngineSnapshot} (slot states, cached tokens, request ids,
 *     prefill/reuse/copy counters, KV cells used) on every state change and at most every 100 ms
 *     while it runs; {@code /slots} and {@code /metrics} read it without locks.</li>
 * <li><b>Decodes in turn when the cores do not suffice</b> ({@code ComputeGate}, a fair lock used
 *     when the process's contexts together have more threads than cores): by default every context
 *     computes with all cores and ggml's threads spin at each operation's barrier, so two models (or
 *     a model and its embeddings) decoding at once starved each other; measured with two tiny models
 *     served together on two cores: 138 requests in 40 s without the gate, 4,305 with it. A context
 *     that hands its turn to a waiting one is told it is idle, so its workers sleep meanwhile.</li>
 * <li><b>Idle</b>: when no slot is active and nothing waits, the engine tells the context
 *     ({@code InferenceContext.idle}); llama.cpp's CPU workers, which poll for the next graph after
 *     each decode (measured on the 2-core test machine: two workers used 340 ms of CPU in the
 *     300 ms after a request), then sleep instead of taking cores from every other process on the
 *     machine until the next request. In the benchmark this polling had added 140 ms to every
 *     llama-server request that followed a ForgeLM one.</li>
 * <li><b>Warmup</b>: at start the engine decodes BOS and EOS once and clears the memory, as
 *     llama-server does, so the first request does not pay for lazy initialisation.</li>
 * <li><b>Log-probabilities</b> are computed only for a generation that asks for them
 *     ({@code GenerationRequest.logprobs() >= 0}): after sampling, the engine reads the sampled
 *     position's logits through {@code InferenceContext.logprobs} and attaches the entries to the
 *     {@code Text} event that releases the token's text (held-back bytes and stop-string text carry
 *     theirs along or drop them); a failure there fails that one request, not the engine.</li>
 * <li><b>N-gram speculative decoding</b> ({@code Speculation}; llama-server's
 *     {@code --spec-type ngram-simple}, off by default, per request {@code speculative.n_max} /
 *     {@code n_min} / {@code ngram_size_n}). Decode is bound by sequential steps, so fewer steps
 *     are the only way to be faster than llama-server at equal kernels.
 *     <ul>
 *     <li><i>Proposal</i>: the slot's history is its cells' tokens ({@code Slot.tokens()}: prompt
 *         and output) plus the token just sampled. Its last {@code ngramSize} tokens are searched
 *         for backwards, as llama.cpp's {@code common_ngram_simple_draft} does; what followed the
 *         latest earlier occurrence, at most {@code draftMax} tokens (and at most what the request's
 *         limit leaves minus one, the slot's cells, and the batch room left after every decoding
 *         slot's own token), is the draft; a draft shorter than {@code draftMin} is not proposed.
 *         No allocation: the draft goes into an array sized once per request.</li>
 *     <li><i>Verify batch</i>: the sampled token at position {@code p}, the draft at
 *         {@code p+1..p+n}, all with logits, in the same {@code llama_decode} as the other slots'
 *         tokens and the prefill chunk (continuous batching as before: drafts come before prefill,
 *         as llama-server's).</li>
 *     <li><i>Acceptance</i>: position {@code p+j} is sampled with the request's own chain
 *         ({@code TokenSampler.sample}, which accepts what it samples); while the sample equals
 *         draft token {@code j} the next position is sampled too, else the sample is the step's last
 *         token; after a fully accepted draft one more token comes from the last position. So each
 *         emitted token is sampled from the logits of exactly the tokens before it, and the chain
 *         (penalties, grammar, DRY, plugin stages, the seeded generator: one draw per emitted token)
 *         is advanced by exactly the emitted tokens, in order: no state is rolled back because no
 *         rejected token ever reaches it. Greedy output is the same token for token; seeded
 *         sampling the same draw for draw, up to the float differences of computing positions in
 *         one batch. This is llama-server's {@code common_sampler_sample_and_accept_n}.</li>
 *     <li><i>Text, stops, logprobs</i>: each accepted token goes through {@code ActiveRequest.sampled}
 *         one by one, as in plain decoding (its log-probabilities read at its own batch index);
 *         an end (end-of-generation, stop string, length) inside a draft ends the request there.</li>
 *     <li><i>Rollback</i>: the cells of the rejected draft tokens ({@code p+1+accepted} on) are
 *         removed ({@code removeTokens}, {@code llama_memory_seq_rm}) and the slot keeps the rest; the
 *         new last token is decoded at the next step. A request that ends inside a draft keeps all
 *         of them: they hold the draft tokens computed after the tokens before them, as
 *         {@code Slot.tokens()} says, so a later prompt may reuse them. A memory that cannot drop a
 *         tail (recurrent) fails that request and turns drafting off for the context.</li>
 *     <li><i>Counters</i>: {@code Timings.draftTokens/draftAccepted} (llama-server's {@code draft_n},
 *         {@code draft_n_accepted}) and the snapshot's drafted, accepted and verify steps
 *         ({@code llamacpp:spec_decode_num_*_total}).</li>
 *     </ul>
 *     </li>
 * <li><b>Draft-model drafting</b> ({@code Drafter}; llama-server's {@code --model-draft},
 *     {@code draft-simple}; {@code Speculation.model()}). The engine owns the draft model
 *     ({@code DraftSetup}) and, on its thread, a second context of it with one sequence per slot,
 *     as many cells per sequence as a slot has. At construction the two vocabularies are compared
 *     as llama.cpp's {@code common_speculative_are_compatible} does (kind, BOS/EOS handling, sizes
 *     within 128, every token's text from id 5): a draft that cannot draft for the model is refused
 *     with the reason and closed. Lifecycle: made with the target's context, recreated with it after
 *     a failure, told to idle with it, closed before it; the draft model's weights are closed when
 *     the engine stops.
 *     <ul>
 *     <li><i>In step lazily</i>: each draft sequence remembers the tokens its cells hold. Before a
 *         step's target batch is built, every decoding slot that drafts gives its history (cells'
 *         tokens plus the token just sampled); the draft sequence keeps the longest prefix it shares
 *         with it, drops the rest ({@code llama_memory_seq_rm}: this is where a rejected draft's
 *         cells go, and where a slot that took another slot's prefix is followed) and computes what
 *         is missing, at most a batch over all slots per step (a slot still catching up on a long
 *         prompt drafts nothing that step, so no step stalls on it).</li>
 *     <li><i>Drafting</i>: the slots draft together, one draft decode per draft position (the first
 *         one carrying the catch-up), each taking the draft model's most likely token, until its
 *         room (the same as an n-gram draft's) is used or the token's probability among the ten
 *         likeliest is below {@code pMin} ({@code --spec-draft-p-min}); a draft shorter than
 *         {@code draftMin} is dropped. The last draft token is not computed in the draft context:
 *         the target computes it, and the next catch-up does too if it was accepted, so an accepted
 *         token costs each model one computation (llama-server recomputes drafts).</li>
 *     <li><i>Verify</i>, rollback of the target's cells, text, stops, logprobs and counters are the
 *         n-gram path's, unchanged: only where the draft comes from differs. A request's own
 *         {@code speculative.*} sizes apply to the draft model. A failed draft decode drafts
 *         nothing that step and forgets the draft sequences; the target decodes on.</li>
 *     </ul></li>
 * <li><b>Synthetic acceptance</b> ({@code SyntheticAcceptance}; llama-server's
 *     {@code --spec-synth-len} / {@code --spec-synth-rates}, benchmarks only): each draft position is
 *     accepted at a set rate, drawn from the request's own seeded generator, instead of where the
 *     target samples it; the sampled token is emitted where it is rejected. It measures speed against
 *     acceptance rate on any model; its output is not the model's.</li>
 * <li><b>Adaptive drafting</b> ({@code ActiveRequest.draftRoom/verified}, per request, for n-gram
 *     and draft-model drafts alike). A draft's verify tokens cost compute whether or not they are
 *     accepted (on a CPU nearly a decode step each), so a request whose drafts are rejected (random
 *     weights, text that does not repeat, a draft model that does not know the domain) must stop
 *     paying for them, and one whose drafts are accepted must keep its full draft length. llama.cpp
 *     does not adapt {@code ngram-simple} or {@code draft-simple} (a draft of {@code n_max} every
 *     step, whatever happened); its {@code ngram-map-k} drafts as many tokens as were accepted
 *     last time for that key, and {@code ngram-mod} resets its table after five drafts in a row
 *     with under a quarter accepted. Here, as TCP's congestion window:
 *     <ul>
 *     <li><i>Length</i>: the first draft is at most {@code ActiveRequest.FIRST_DRAFT} (8) tokens
 *         (n-gram's default maximum is 48: one rejected 48-token verify costs a 256-token request
 *         about as much as everything below); a fully accepted draft doubles the next one's
 *         allowance up to {@code draftMax}, a partly accepted one sets it to twice the accepted
 *         tokens, one with none accepted halves it, never below {@code max(1, draftMin)}.</li>
 *     <li><i>Pause</i>: from the second draft in a row with nothing accepted, the request also skips
 *         drafting for a pause of 4 decode steps, then 16, then 64 (the cap) after each further
 *         miss; one accepted token ends the growth (the next pause is 4 again). A single miss never
 *         pauses: at an acceptance rate of one half, half the drafts miss and still pay. A paused
 *         request proposes nothing, so a draft model's decodes are skipped too; its draft sequence
 *         falls behind and catches up in one batch at the next draft (as after a long prompt).</li>
 *     <li><i>Bound</i>: with every draft rejected, the drafts are 8, 4, 2 tokens (for a maximum of 8
 *         or more; 4, 2 for 4) and then one of the floor length every 65 steps: at most
 *         {@code max(1, draftMin) / 65} verify tokens per emitted token once the pauses are at their
 *         cap (1.5% of a token for the default minimum), 18 in all over a 256-token request (0.07
 *         per token; 11, 0.04, for a maximum of 4), where drafting every step verifies
 *         {@code draftMax} per token. With every draft accepted the length reaches {@code draftMax}
 *         after {@code log2(draftMax/8)} drafts and stays there. Only which tokens are verified
 *         changes, never how a token is chosen: greedy output is the same token for token, and the
 *         counters count what was drafted and verified.</li>
 *     </ul></li>
 * <li><b>Failures are contained where they belong</b>: a request's own sampler, grammar, stop rule
 *     or log-probabilities failing (or its sampler failing to be made) fails that request and drops
 *     its slot's cells, whose state is then unknown; the others go on. A failed decode fails the
 *     requests that had tokens in its batch, and no other. Anything else escaping the loop ends the
 *     engine: every request is failed, new ones are refused, the context is closed.</li>
 * <li><b>Cancellation</b>: {@link forge.runtime.engine.Generation#cancel()} sets a flag the
 *     engine reads at the next step, which frees the slot; its cells stay cached. A request
 *     cancelled while queued ends when it would have been admitted, having cost nothing.</li>
 * <li><b>Shutdown</b>: {@link forge.runtime.engine.Engine#close()} stops the loop, fails what is
 *     still running or queued with a clear error, and closes the context on its own thread.</li>
 * </ul>
 *
 * <h2>Classes, by responsibility</h2>
 * <ul>
 * <li><b>The thread and its queue</b>: {@code Engine} (public) creates the context on its thread,
 *     checks and queues submissions, admits queued requests while a slot is free, runs the
 *     scheduler's steps while any request is active, idles the context otherwise, holds the
 *     published snapshot, and shuts down.</li>
 * <li><b>The step</b>: {@code Scheduler}, no thread and no queue of its own, owns the slots and
 *     the requests running in them: it starts a request in a slot, builds and decodes each step's
 *     batch (decoding media chunks before it), hands the logits to the requests (verifying drafts),
 *     ends and fails requests, and builds snapshots. Tests drive it step by step against a fake
 *     {@code InferenceContext} and assert the exact calls it makes. Two parts of it are classes of
 *     their own, over the same slot and request arrays: {@code SlotPrefixes} carries out the cache
 *     policy's decision for a starting request ({@code removeTokens} / {@code copySequence} /
 *     {@code restoreSequence}), saves slots into the host cache, and counts what was reused;
 *     {@code KvPool} keeps the count of the one KV pool (held and free cells, which idle slot is
 *     evicted, which request ends with 503, how much a step's prefill may take).</li>
 * <li><b>The cache policy, as pure logic</b> (STYLE.md rule 8): {@code SlotView} is a slot as plain
 *     values (cells, cached count, last use, what it does, its request's prompt and progress);
 *     {@code SlotChoice} says which free slot a request gets; {@code PrefixPlan} says whether it
 *     keeps its slot's cells, copies another slot's, restores the host cache's, or waits
 *     ({@code Keep} / {@code Copy} / {@code Restore} / {@code Wait}); {@code PrefixWait} says when a
 *     wait is worth it and when it is over. They take values and return a decision, and are
 *     tested on thousands of random slot sets.</li>
 * <li><b>The host prompt cache</b>: {@code PromptCache} decides on plain values what is saved
 *     ({@code worthSaving}), which entry a prompt restores ({@code longest}) and what is evicted
 *     ({@code put}); the scheduler makes the native calls. {@code PromptCacheStore} keeps it on
 *     disk.</li>
 * <li><b>What outlives a request</b>: {@code Slot}, its sequence id, the tokens its KV cells hold
 *     (with those of the batch in flight), each cell's position (the same number but after a media
 *     chunk placed by M-RoPE) and its last use.</li>
 * <li><b>What lives as long as a request</b>: {@code ActiveRequest}, made when the request is
 *     admitted and dropped when it ends, so nothing is ever reset by hand: its sampler, the UTF-8
 *     and stop-string state of its text, its counters and limit, its log-probabilities and prompt
 *     scores, its timings, and the wait for a leader's prefix. It decides from each sampled token
 *     whether the request goes on, stops or reached its length; the scheduler acts on that.</li>
 * </ul>
 *
 * {@snippet :
 * try (Engine engine = new Engine("qwen", model, EngineConfig.defaults())) {
 *     Generation g = engine.submit(new GenerationRequest("req-1", promptTokens, SamplingParams.GREEDY,
 *             64, List.of("\n\n"), Set.of(), false));
 *     for (GenerationEvent e = g.next(); !(e instanceof GenerationEvent.Done); e = g.next()) {
 *         if (e instanceof GenerationEvent.Text t) System.out.print(t.text());
 *     }
 * }
 * }
 *
 * <h2>Engine states</h2>
 * An engine is running, failed or closed ({@link forge.runtime.engine.EngineHealth}). A failure of
 * one request's sampling, grammar or stop rule fails that request and frees its slot; a decode that
 * returns an error fails the requests of its batch. A failure of the context itself (an exception
 * the loop does not contain: a bug, a native error reported as an exception, memory) fails every
 * running and queued request at once, marks the engine failed, and recreates its context on the
 * engine thread: up to {@code MAX_RECREATE_ATTEMPTS} attempts, each after a longer pause, and at most
 * {@code MAX_RESTARTS} recoveries over the engine's life. Meanwhile new requests are refused with
 * {@code UNAVAILABLE} (503 and {@code Retry-After} over HTTP) and {@code /health} names the model
 * and the reason; an engine that cannot recreate its context stays failed and says why.
 */
package forge.runtime.engine;
