// Codex CLI's freeform apply_patch tool through the official `openai` npm package's Responses client,
// the request shaped as Codex sends it: a `custom` tool whose Lark grammar (Codex's own text) is
// enforced while the random-weight model writes, so its `custom_tool_call` input is a patch, whole and
// streamed with the custom-tool-input events; then the call's output goes back for the next turn.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { startImageServer } from './image-server.js';

const here = import.meta.dirname ?? new URL('.', import.meta.url).pathname;

// Codex's grammar, kept once in the grammar module's test resources; its source comment dropped.
const APPLY_PATCH = readFileSync(join(here, '../../../../forge.runtime/grammar/src/test/resources/forge/lib/grammar/apply_patch.lark'), 'utf8')
  .split('\n').filter((l) => !l.startsWith('//')).join('\n');

/**
 * The apply_patch format read line by line as its documentation describes it, apart from any grammar:
 * "*** Begin Patch", file operations (Add File with "+" lines; Delete File; Update File, maybe
 * "*** Move to:", change lines "@@", "@@ header", " ", "+", "-", maybe "*** End of File"),
 * "*** End Patch" with an optional final newline.
 */
function isPatch(text) {
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  const end = lines.length - 1;
  if (lines.length < 3 || lines[0] !== '*** Begin Patch' || lines[end] !== '*** End Patch') return false;
  const named = (line, prefix) => line.startsWith(prefix) && line.length > prefix.length;
  const change = (line) => line === '@@' || named(line, '@@ ') || /^[ +-]/.test(line);
  let i = 1;
  while (i < end) {
    const line = lines[i++];
    if (named(line, '*** Add File: ')) {
      let added = 0;
      while (i < end && lines[i].startsWith('+')) { i++; added++; }
      if (added === 0) return false;
    } else if (named(line, '*** Update File: ')) {
      if (i < end && named(lines[i], '*** Move to: ')) i++;
      let changes = 0;
      while (i < end && change(lines[i])) { i++; changes++; }
      if (changes > 0 && i < end && lines[i] === '*** End of File') i++;
    } else if (!named(line, '*** Delete File: ')) {
      return false;
    }
  }
  return true;
}

describe('openai npm package, Responses API, Codex custom tools', () => {
  let server;
  let client;
  let steering;

  before(async () => {
    // Codex's request, the grammar in the tool's description, is over a thousand tokens of the tiny vocabulary.
    server = await startImageServer('codex-key', [], { synth: ['--ctx', '8192'], context: 8192 });
    client = new OpenAI({ baseURL: `${server.base}/v1`, apiKey: server.key, maxRetries: 0, timeout: 120_000 });
    // The random model, unsteered, writes a file name without end: biased up, "\" then "n" (a newline as
    // the JSON string holds it) ends a line, "*" opens the next file, "D"/"E" choose Delete and End.
    steering = {};
    for (const piece of ['\\', 'n', '*', 'D', 'E']) {
      const r = await fetch(`${server.base}/tokenize`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.key}` },
        body: JSON.stringify({ content: piece, parse_special: false }),
      });
      const { tokens } = await r.json();
      assert.equal(tokens.length, 1, piece);
      steering[tokens[0]] = 5;
    }
  });

  after(async () => {
    await server?.stop();
  });

  /** As Codex CLI sends a turn: instructions, a message item, its tools (one hosted), reasoning, include, a cache key. */
  function codexRequest(extra = {}) {
    return {
      model: 'tiny',
      instructions: 'You are a coding agent running in the Codex CLI.',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Add a file hello.txt that says hello.' }] }],
      tools: [
        {
          type: 'function', name: 'shell', description: 'Runs a shell command and returns its output.', strict: false,
          parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } }, required: ['command'], additionalProperties: false },
        },
        {
          type: 'custom', name: 'apply_patch',
          description: 'Use the `apply_patch` tool to edit files. This is a FREEFORM tool, so do not wrap the patch in JSON.',
          format: { type: 'grammar', syntax: 'lark', definition: APPLY_PATCH },
        },
        { type: 'web_search' },
      ],
      tool_choice: { type: 'custom', name: 'apply_patch' },
      parallel_tool_calls: false,
      reasoning: null,
      store: true,
      include: [],
      prompt_cache_key: 'c0dex-session',
      // The test's own: the steering above, sampled with a seed.
      logit_bias: steering, temperature: 1, seed: 7, max_output_tokens: 600,
      ...extra,
    };
  }

  test('apply_patch forced: the custom_tool_call input is a patch, and its output goes back', async () => {
    const r = await client.responses.create(codexRequest());
    assert.equal(r.status, 'completed');
    const calls = r.output.filter((o) => o.type === 'custom_tool_call');
    assert.equal(calls.length, 1, JSON.stringify(r.output));
    const [call] = calls;
    assert.equal(call.name, 'apply_patch');
    assert.match(call.call_id, /^call_/);
    assert.ok(isPatch(call.input), call.input);
    assert.equal(r.metadata.forge_dropped_tools, 'tools[2] (web_search)', 'the hosted tool was not offered, and the response says so');

    // Codex's next turn: the call and its output as input items, the tools offered again.
    const next = await client.responses.create(codexRequest({
      input: [...codexRequest().input, call, { type: 'custom_tool_call_output', call_id: call.call_id, output: 'Success. Updated the following files:\nD x\n' }],
      tool_choice: 'auto', max_output_tokens: 8, logit_bias: undefined,
    }));
    assert.ok(['completed', 'incomplete'].includes(next.status), next.status);
    assert.ok(next.usage.input_tokens > r.usage.input_tokens, 'the call and its output are in the prompt');
    assert.ok(next.usage.input_tokens_details.cached_tokens > 0, 'after the cached prefix of the first turn');
  });

  test('streamed: the input deltas make the patch the done event and the final item hold', async () => {
    const stream = await client.responses.create(codexRequest({ stream: true }));
    let deltas = '';
    let deltaCount = 0;
    let done;
    let added;
    let final;
    for await (const e of stream) {
      if (e.type === 'response.output_item.added' && e.item.type === 'custom_tool_call') added = e.item;
      if (e.type === 'response.custom_tool_call_input.delta') {
        assert.equal(e.item_id, added.id);
        deltas += e.delta;
        deltaCount++;
      }
      if (e.type === 'response.custom_tool_call_input.done') done = e.input;
      if (e.type === 'response.function_call_arguments.delta') assert.fail('a custom tool call is not a function call');
      if (e.type === 'response.completed') final = e.response;
    }
    assert.ok(deltaCount > 1, 'the input streams in pieces');
    assert.equal(done, deltas);
    assert.ok(isPatch(done), done);
    assert.equal(final.output.find((o) => o.type === 'custom_tool_call').input, done);
  });

  test('a grammar outside the subset is a 400 naming the construct and its line', async () => {
    const request = codexRequest();
    request.tools[1].format.definition = 'start: "a" B\n%declare B\n';
    await assert.rejects(client.responses.create(request), (e) => e instanceof OpenAI.BadRequestError
      && e.param === 'tools[1].format.definition' && /line 2/.test(e.message) && /%declare/.test(e.message));
  });
});
