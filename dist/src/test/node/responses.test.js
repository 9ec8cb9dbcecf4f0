// The official `openai` npm package's Responses API (what Codex CLI speaks) against ForgeLM's jlink
// image: responses.create whole and streamed, forced function calls, previous_response_id, retrieve
// and delete. The model is random-weight noise: structure, not wording.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startImageServer, UNIT_SCHEMA } from './image-server.js';

describe('openai npm package, Responses API', () => {
  let server;
  let client;

  before(async () => {
    server = await startImageServer('responses-key');
    client = new OpenAI({ baseURL: `${server.base}/v1`, apiKey: server.key, maxRetries: 0, timeout: 60_000 });
  });

  after(async () => {
    await server?.stop();
  });

  const base = { model: 'tiny', instructions: 'Be brief.', input: 'Hello', max_output_tokens: 8, temperature: 0 };
  const unitTool = { type: 'function', name: 'set_unit', description: 'Choose the unit', parameters: UNIT_SCHEMA, strict: true };

  test('responses.create', async () => {
    const r = await client.responses.create(base);
    assert.equal(r.object, 'response');
    assert.match(r.id, /^resp_/);
    assert.ok(['completed', 'incomplete'].includes(r.status), r.status);
    assert.equal(typeof r.output_text, 'string');
    assert.ok(r.usage.output_tokens > 0 && r.usage.output_tokens <= 8);
    assert.equal(r.usage.total_tokens, r.usage.input_tokens + r.usage.output_tokens);
    if (r.status === 'incomplete') {
      assert.equal(r.incomplete_details.reason, 'max_output_tokens');
    }
  });

  test('streaming', async () => {
    const stream = await client.responses.create({ ...base, stream: true });
    const types = [];
    let text = '';
    let final;
    for await (const e of stream) {
      assert.equal(e.sequence_number, types.length, 'numbered in order');
      types.push(e.type);
      if (e.type === 'response.output_text.delta') {
        text += e.delta;
      }
      if (e.type === 'response.completed' || e.type === 'response.incomplete') {
        final = e.response;
      }
    }
    assert.deepEqual(types.slice(0, 2), ['response.created', 'response.in_progress']);
    assert.ok(['response.completed', 'response.incomplete'].includes(types.at(-1)));
    assert.equal(final.output.filter((o) => o.type === 'message').flatMap((o) => o.content).map((p) => p.text).join(''), text);
    // The SDK's own stream helper assembles the same.
    const helper = client.responses.stream(base);
    let helped = '';
    helper.on('response.output_text.delta', (e) => { helped += e.delta; });
    const response = await helper.finalResponse();
    // (The helper sets output_text only when it parses the output: read the items.)
    assert.equal(response.output.filter((o) => o.type === 'message').flatMap((o) => o.content).map((p) => p.text).join(''), helped);
    assert.equal(helped, text, 'the same at temperature 0');
  });

  test('forced function call', async () => {
    const r = await client.responses.create({
      ...base, max_output_tokens: 200, temperature: 1, tools: [unitTool], tool_choice: 'required', parallel_tool_calls: false,
    });
    const call = r.output.find((o) => o.type === 'function_call');
    assert.equal(call.name, 'set_unit');
    const args = JSON.parse(call.arguments);
    assert.ok(['celsius', 'fahrenheit'].includes(args.unit), call.arguments);
    assert.equal(typeof args.precise, 'boolean');
    // Its output goes back as a function_call_output item.
    const next = await client.responses.create({
      ...base, tools: [unitTool],
      input: [{ role: 'user', content: 'Hello' }, call, { type: 'function_call_output', call_id: call.call_id, output: 'done' }],
    });
    assert.equal(next.object, 'response');
  });

  test('previous_response_id, retrieve and delete', async () => {
    const first = await client.responses.create(base);
    const second = await client.responses.create({ ...base, input: 'And then?', previous_response_id: first.id });
    assert.equal(second.previous_response_id, first.id);
    assert.ok(second.usage.input_tokens > first.usage.input_tokens, 'the conversation goes on');
    assert.ok(second.usage.input_tokens_details.cached_tokens > 0, 'its prefix came from the cache');
    const fetched = await client.responses.retrieve(first.id);
    assert.equal(fetched.id, first.id);
    assert.equal(fetched.output_text, first.output_text);
    await client.responses.delete(first.id);
    await assert.rejects(client.responses.retrieve(first.id), (e) => e instanceof OpenAI.NotFoundError);
    await assert.rejects(client.responses.create({ ...base, previous_response_id: first.id }),
      (e) => e instanceof OpenAI.BadRequestError && e.code === 'previous_response_not_found');
  });
});
