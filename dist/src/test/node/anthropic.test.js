// The official Anthropic SDK (`@anthropic-ai/sdk`), what Claude Code and every Anthropic-based agent
// is built on, against ForgeLM's jlink image: /v1/messages whole and streamed, forced tools,
// thinking, count_tokens and errors, with the SDK's own x-api-key header. Qwen 3.5's template opens
// a think block unless thinking is disabled, so its reasoning comes back as thinking blocks. The
// model is random-weight noise: structure, not wording.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { startImageServer, UNIT_SCHEMA } from './image-server.js';

describe('Anthropic SDK', () => {
  let server;
  let client;

  before(async () => {
    server = await startImageServer('anthropic-key', ['--template', 'qwen3.5']);
    // apiKey is sent as x-api-key, as against Anthropic's own API.
    client = new Anthropic({ baseURL: server.base, apiKey: server.key, maxRetries: 0, timeout: 60_000 });
  });

  after(async () => {
    await server?.stop();
  });

  const base = {
    model: 'tiny', max_tokens: 8, temperature: 0, thinking: { type: 'disabled' },
    system: 'Be brief.', messages: [{ role: 'user', content: 'Hello' }],
  };
  const unitTool = { name: 'set_unit', description: 'Choose the unit', input_schema: UNIT_SCHEMA };

  test('messages.create', async () => {
    const m = await client.messages.create(base);
    assert.equal(m.type, 'message');
    assert.equal(m.role, 'assistant');
    assert.match(m.id, /^msg_/);
    assert.ok(m.content.every((b) => b.type === 'text'), JSON.stringify(m.content));
    assert.ok(['end_turn', 'max_tokens'].includes(m.stop_reason), m.stop_reason);
    assert.equal(m.stop_sequence, null);
    assert.ok(m.usage.output_tokens > 0 && m.usage.output_tokens <= 8);
    assert.ok(m.usage.input_tokens + m.usage.cache_read_input_tokens > 0);
    const counted = await client.messages.countTokens({ model: 'tiny', system: base.system, messages: base.messages,
      thinking: base.thinking });
    assert.equal(counted.input_tokens, m.usage.input_tokens + m.usage.cache_read_input_tokens);
  });

  test('messages.stream', async () => {
    const stream = client.messages.stream(base);
    let text = '';
    const types = [];
    stream.on('text', (delta) => { text += delta; });
    stream.on('streamEvent', (e) => types.push(e.type));
    const m = await stream.finalMessage();
    assert.equal(types[0], 'message_start');
    assert.equal(types.at(-1), 'message_stop');
    assert.equal(m.content.length === 0 ? '' : m.content[0].text, text);
    assert.ok(['end_turn', 'max_tokens'].includes(m.stop_reason));
    assert.ok(m.usage.output_tokens > 0);
    const whole = await client.messages.create(base);
    assert.equal(whole.content.length === 0 ? '' : whole.content[0].text, text, 'streamed and whole agree at temperature 0');
  });

  test('forced tool use', async () => {
    const m = await client.messages.create({
      ...base, max_tokens: 200, temperature: 1, tools: [unitTool],
      tool_choice: { type: 'tool', name: 'set_unit', disable_parallel_tool_use: true },
    });
    assert.equal(m.stop_reason, 'tool_use');
    const call = m.content.find((b) => b.type === 'tool_use');
    assert.equal(call.name, 'set_unit');
    assert.ok(['celsius', 'fahrenheit'].includes(call.input.unit), JSON.stringify(call));
    assert.equal(typeof call.input.precise, 'boolean');

    // Streamed, the SDK assembles the input from input_json_delta events.
    const stream = client.messages.stream({
      ...base, max_tokens: 200, temperature: 1, tools: [unitTool], tool_choice: { type: 'any', disable_parallel_tool_use: true },
    });
    const final = await stream.finalMessage();
    const streamed = final.content.find((b) => b.type === 'tool_use');
    assert.ok(['celsius', 'fahrenheit'].includes(streamed.input.unit), JSON.stringify(final.content));
    assert.equal(final.stop_reason, 'tool_use');

    // The result goes back as a tool_result block (without the tools, which take most of the
    // 1024-token slot in this tiny vocabulary).
    const next = await client.messages.create({
      ...base,
      messages: [...base.messages, { role: 'assistant', content: [streamed] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: streamed.id, content: 'done' }] }],
    });
    assert.equal(next.type, 'message');
  });

  test('thinking', async () => {
    const m = await client.messages.create({ ...base, thinking: { type: 'adaptive' } });
    assert.equal(m.content[0].type, 'thinking', JSON.stringify(m.content));
    assert.ok(m.content[0].thinking.length > 0);
    assert.equal(m.content[0].signature, '');
    let thinking = '';
    const stream = client.messages.stream({ ...base, thinking: { type: 'adaptive' } });
    stream.on('thinking', (delta) => { thinking += delta; });
    const final = await stream.finalMessage();
    assert.equal(final.content[0].type, 'thinking');
    assert.equal(final.content[0].thinking, thinking);
    // Thinking off renders another prompt: the count tells.
    const off = await client.messages.countTokens({ model: 'tiny', messages: base.messages, thinking: { type: 'disabled' } });
    const on = await client.messages.countTokens({ model: 'tiny', messages: base.messages, thinking: { type: 'enabled', budget_tokens: 1024 } });
    assert.ok(off.input_tokens > on.input_tokens, `${on.input_tokens} vs ${off.input_tokens}`);
  });

  test('errors: unknown model 404, bad request 400, bad key 401; a bearer token works too', async () => {
    await assert.rejects(client.messages.create({ ...base, model: 'no-such-model' }), (e) => {
      assert.ok(e instanceof Anthropic.NotFoundError, String(e));
      assert.equal(e.status, 404);
      assert.equal(e.error.type, 'error');
      assert.equal(e.error.error.type, 'not_found_error');
      return true;
    });
    await assert.rejects(client.messages.create({ ...base, messages: [{ role: 'user', content: [{ type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }] }] }), (e) => {
      assert.ok(e instanceof Anthropic.BadRequestError, String(e));
      assert.equal(e.error.error.type, 'invalid_request_error');
      assert.match(e.message, /image/);
      return true;
    });
    const stranger = new Anthropic({ baseURL: server.base, apiKey: 'wrong', maxRetries: 0 });
    await assert.rejects(stranger.messages.create(base), (e) => {
      assert.ok(e instanceof Anthropic.AuthenticationError, String(e));
      assert.equal(e.error.error.type, 'authentication_error');
      return true;
    });
    const bearer = new Anthropic({ baseURL: server.base, authToken: server.key, maxRetries: 0 });
    assert.equal((await bearer.messages.create(base)).type, 'message');
  });
});
