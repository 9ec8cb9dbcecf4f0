// The Vercel AI SDK (`ai` with `@ai-sdk/openai-compatible`), the stack many editor integrations
// use, against ForgeLM's jlink image. The model is random-weight noise: structure, not wording.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, embedMany, generateText, jsonSchema, Output, streamText, tool } from 'ai';
import { closingBias, PERSON_SCHEMA, startImageServer, WEATHER_SCHEMA } from './image-server.js';

describe('Vercel AI SDK (openai-compatible provider)', () => {
  let server;
  let forge;
  let structured;

  before(async () => {
    server = await startImageServer('ai-sdk-key');
    forge = createOpenAICompatible({
      name: 'forge', baseURL: `${server.base}/v1`, apiKey: server.key, includeUsage: true, supportsStructuredOutputs: true,
    });
    // The same provider with a bias towards JSON's closing tokens in every request body, so that
    // grammar-constrained noise finishes within its budget (the SDK has no logit_bias setting).
    const bias = await closingBias(server);
    structured = createOpenAICompatible({
      name: 'forge', baseURL: `${server.base}/v1`, apiKey: server.key, includeUsage: true, supportsStructuredOutputs: true,
      fetch: (url, init) => fetch(url, { ...init, body: JSON.stringify({ ...JSON.parse(init.body), logit_bias: bias, seed: 5 }) }),
    });
  });

  after(async () => {
    await server?.stop();
  });

  const settings = { maxOutputTokens: 6, temperature: 0, maxRetries: 0 };

  test('chat', async () => {
    const r = await generateText({ model: forge.chatModel('tiny'), system: 'Be brief.', prompt: 'Hello', ...settings });
    assert.equal(typeof r.text, 'string');
    assert.ok(['stop', 'length'].includes(r.finishReason), r.finishReason);
    assert.ok(r.usage.outputTokens > 0 && r.usage.outputTokens <= 6);
    assert.ok(r.usage.inputTokens > 0);
    assert.equal(r.response.modelId, 'tiny');
  });

  test('streaming', async () => {
    const r = streamText({ model: forge.chatModel('tiny'), prompt: 'Hello', ...settings });
    let streamed = '';
    for await (const part of r.textStream) {
      streamed += part;
    }
    assert.equal(streamed, await r.text);
    assert.ok(['stop', 'length'].includes(await r.finishReason));
    assert.ok((await r.usage).outputTokens > 0, 'the usage chunk arrived (include_usage)');
    const whole = await generateText({ model: forge.chatModel('tiny'), prompt: 'Hello', ...settings });
    assert.equal(streamed, whole.text, 'streamed and whole answers agree at temperature 0');
  });

  test('tools with toolChoice required', async () => {
    const r = await generateText({
      model: structured.chatModel('tiny'),
      prompt: 'Weather in Paris?',
      tools: { get_weather: tool({ description: 'The weather in a city', inputSchema: jsonSchema(WEATHER_SCHEMA) }) },
      toolChoice: 'required',
      maxOutputTokens: 300,
      temperature: 1,
      maxRetries: 0,
    });
    // The call is forced by the grammar, valid even from noise.
    assert.equal(r.finishReason, 'tool-calls');
    assert.equal(r.toolCalls[0].toolName, 'get_weather');
    assert.equal(typeof r.toolCalls[0].input.city, 'string');
  });

  test('json_schema structured output', async () => {
    const r = await generateText({
      model: structured.chatModel('tiny'),
      prompt: 'A person as JSON',
      output: Output.object({ schema: jsonSchema(PERSON_SCHEMA), name: 'person' }),
      maxOutputTokens: 300,
      temperature: 1,
      maxRetries: 0,
    });
    // The output matches the schema: the grammar allows nothing else.
    assert.equal(typeof r.output.name, 'string');
    assert.ok(Number.isInteger(r.output.age));
  });

  test('embeddings', async () => {
    const r = await embedMany({ model: forge.embeddingModel('tiny'), values: ['one', 'two words'], maxRetries: 0 });
    assert.equal(r.embeddings.length, 2);
    assert.equal(r.embeddings[0].length, r.embeddings[1].length);
    const norm = Math.sqrt(r.embeddings[0].reduce((s, x) => s + x * x, 0));
    assert.ok(Math.abs(norm - 1) < 1e-3, `normalized: ${norm}`);
  });

  test('errors: unknown model 404, bad key 401', async () => {
    await assert.rejects(generateText({ model: forge.chatModel('no-such-model'), prompt: 'Hello', ...settings }), (e) => {
      assert.ok(APICallError.isInstance(e), String(e));
      assert.equal(e.statusCode, 404);
      assert.match(e.message, /no-such-model/);
      assert.equal(e.isRetryable, false);
      return true;
    });
    const stranger = createOpenAICompatible({ name: 'forge', baseURL: `${server.base}/v1`, apiKey: 'wrong' });
    await assert.rejects(generateText({ model: stranger.chatModel('tiny'), prompt: 'Hello', ...settings }),
      (e) => APICallError.isInstance(e) && e.statusCode === 401);
  });
});
