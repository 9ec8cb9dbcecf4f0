// The official `openai` npm package against ForgeLM's jlink image. Its types are loose, so every
// test checks the wire shapes it relies on. The model is random-weight noise: structure, not wording.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { closingBias, PERSON_SCHEMA, startImageServer, WEATHER_SCHEMA } from './image-server.js';

describe('openai npm package', () => {
  let server;
  let client;

  before(async () => {
    server = await startImageServer('node-key');
    client = new OpenAI({ baseURL: `${server.base}/v1`, apiKey: server.key, maxRetries: 0, timeout: 60_000 });
  });

  after(async () => {
    await server?.stop();
  });

  const messages = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello' }];

  test('chat with n choices', async () => {
    const c = await client.chat.completions.create({ model: 'tiny', messages, max_tokens: 6, temperature: 0, n: 2 });
    assert.equal(c.object, 'chat.completion');
    assert.equal(c.choices.length, 2);
    assert.deepEqual(c.choices.map((x) => x.index), [0, 1]);
    for (const choice of c.choices) {
      assert.equal(choice.message.role, 'assistant');
      assert.equal(typeof choice.message.content, 'string');
      assert.ok(['stop', 'length'].includes(choice.finish_reason));
    }
    assert.ok(c.usage.completion_tokens > 0 && c.usage.completion_tokens <= 12);
    assert.equal(c.usage.total_tokens, c.usage.prompt_tokens + c.usage.completion_tokens);
  });

  test('streaming with usage', async () => {
    const stream = await client.chat.completions.create({
      model: 'tiny', messages, max_tokens: 6, temperature: 0, stream: true, stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) {
      chunks.push(chunk);
    }
    assert.equal(chunks[0].choices[0].delta.role, 'assistant', 'the role comes in the first delta');
    assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk'));
    const finishes = chunks.flatMap((c) => c.choices).filter((c) => c.finish_reason);
    assert.equal(finishes.length, 1);
    const last = chunks.at(-1);
    assert.deepEqual(last.choices, []);
    assert.ok(last.usage.completion_tokens > 0);
    const text = chunks.flatMap((c) => c.choices).map((c) => c.delta.content ?? '').join('');
    const whole = await client.chat.completions.create({ model: 'tiny', messages, max_tokens: 6, temperature: 0 });
    assert.equal(text, whole.choices[0].message.content, 'streamed and whole answers agree at temperature 0');
  });

  test('logprobs', async () => {
    const c = await client.chat.completions.create({
      model: 'tiny', messages, max_tokens: 5, temperature: 0, logprobs: true, top_logprobs: 2,
    });
    const content = c.choices[0].logprobs.content;
    assert.equal(content.length, c.usage.completion_tokens);
    for (const t of content) {
      assert.equal(typeof t.token, 'string');
      assert.ok(t.logprob <= 0);
      assert.ok(Array.isArray(t.bytes));
      assert.equal(t.top_logprobs.length, 2);
    }
  });

  test('tools with tool_choice required', async () => {
    const c = await client.chat.completions.create({
      model: 'tiny',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'The weather', parameters: WEATHER_SCHEMA } }],
      tool_choice: 'required',
      max_tokens: 300,
      temperature: 1,
      seed: 5,
      logit_bias: await closingBias(server),
    });
    // The call is forced by the grammar, valid even from noise.
    const call = c.choices[0].message.tool_calls[0];
    assert.equal(c.choices[0].finish_reason, 'tool_calls');
    assert.equal(call.type, 'function');
    assert.equal(call.function.name, 'get_weather');
    assert.equal(typeof JSON.parse(call.function.arguments).city, 'string');
  });

  test('json_schema response format', async () => {
    const c = await client.chat.completions.create({
      model: 'tiny',
      messages: [{ role: 'user', content: 'A person as JSON' }],
      response_format: { type: 'json_schema', json_schema: { name: 'person', schema: PERSON_SCHEMA, strict: true } },
      max_tokens: 300,
      temperature: 1,
      seed: 5,
      logit_bias: await closingBias(server),
    });
    // The output matches the schema: the grammar allows nothing else.
    assert.equal(c.choices[0].finish_reason, 'stop');
    const person = JSON.parse(c.choices[0].message.content);
    assert.equal(typeof person.name, 'string');
    assert.ok(Number.isInteger(person.age));
  });

  test('embeddings, as base64 (the package default) and floats', async () => {
    const b64 = await client.embeddings.create({ model: 'tiny', input: ['one', 'two words'] });
    assert.equal(b64.data.length, 2);
    const floats = await client.embeddings.create({ model: 'tiny', input: ['one', 'two words'], encoding_format: 'float' });
    assert.equal(floats.data[0].embedding.length, b64.data[0].embedding.length);
    const norm = Math.sqrt(floats.data[0].embedding.reduce((s, x) => s + x * x, 0));
    assert.ok(Math.abs(norm - 1) < 1e-3, `normalized: ${norm}`);
    floats.data[0].embedding.forEach((x, i) => assert.ok(Math.abs(x - b64.data[0].embedding[i]) < 1e-6));
    assert.ok(b64.usage.prompt_tokens > 0);
  });

  test('errors: unknown model 404, bad parameter 400, bad key 401', async () => {
    await assert.rejects(client.chat.completions.create({ model: 'no-such-model', messages }), (e) => {
      assert.ok(e instanceof OpenAI.NotFoundError, String(e));
      assert.equal(e.status, 404);
      assert.match(e.message, /no-such-model/);
      return true;
    });
    await assert.rejects(client.chat.completions.create({ model: 'tiny', messages, logprobs: true, top_logprobs: 21 }), (e) => {
      assert.ok(e instanceof OpenAI.BadRequestError, String(e));
      assert.equal(e.param, 'top_logprobs');
      return true;
    });
    const stranger = new OpenAI({ baseURL: `${server.base}/v1`, apiKey: 'wrong', maxRetries: 0 });
    await assert.rejects(stranger.models.list(), (e) => e instanceof OpenAI.AuthenticationError && e.status === 401);
  });
});
