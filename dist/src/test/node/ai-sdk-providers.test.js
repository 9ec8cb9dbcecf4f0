// The Vercel AI SDK's first-party providers against ForgeLM's jlink image: `@ai-sdk/openai`, whose
// default model speaks the Responses API, and `@ai-sdk/anthropic` (Messages API). generateText,
// streamText, tools and structured output with each. The model is random-weight noise: structure,
// not wording; schemas are bounded (an enum and a boolean), since neither API has logit_bias.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createOpenAI } from '@ai-sdk/openai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, jsonSchema, Output, streamText, tool } from 'ai';
import { startImageServer, UNIT_SCHEMA } from './image-server.js';

describe('Vercel AI SDK, @ai-sdk/openai (Responses) and @ai-sdk/anthropic (Messages)', () => {
  let server;
  let providers;

  before(async () => {
    server = await startImageServer('providers-key');
    const openai = createOpenAI({ baseURL: `${server.base}/v1`, apiKey: server.key });
    const anthropic = createAnthropic({ baseURL: `${server.base}/v1`, apiKey: server.key });
    // openai('tiny') is the Responses model: the provider's default.
    providers = { openai: openai('tiny'), anthropic: anthropic('tiny') };
  });

  after(async () => {
    await server?.stop();
  });

  const settings = { maxOutputTokens: 6, temperature: 0, maxRetries: 0 };

  for (const name of ['openai', 'anthropic']) {
    test(`${name}: generateText`, async () => {
      const r = await generateText({ model: providers[name], system: 'Be brief.', prompt: 'Hello', ...settings });
      assert.equal(typeof r.text, 'string');
      assert.ok(['stop', 'length'].includes(r.finishReason), r.finishReason);
      assert.ok(r.usage.outputTokens > 0 && r.usage.outputTokens <= 6, JSON.stringify(r.usage));
      assert.ok(r.usage.inputTokens > 0);
    });

    test(`${name}: streamText`, async () => {
      const r = streamText({ model: providers[name], prompt: 'Hello', ...settings });
      let streamed = '';
      for await (const part of r.textStream) {
        streamed += part;
      }
      assert.equal(streamed, await r.text);
      assert.ok(['stop', 'length'].includes(await r.finishReason));
      assert.ok((await r.usage).outputTokens > 0);
      const whole = await generateText({ model: providers[name], prompt: 'Hello', ...settings });
      assert.equal(streamed, whole.text, 'streamed and whole agree at temperature 0');
    });

    test(`${name}: tools with toolChoice required`, async () => {
      const r = await generateText({
        model: providers[name],
        prompt: 'Which unit?',
        tools: { set_unit: tool({ description: 'Choose the unit', inputSchema: jsonSchema(UNIT_SCHEMA) }) },
        toolChoice: 'required',
        maxOutputTokens: 200,
        temperature: 1,
        maxRetries: 0,
        providerOptions: { openai: { parallelToolCalls: false }, anthropic: { disableParallelToolUse: true } },
      });
      assert.equal(r.finishReason, 'tool-calls');
      assert.equal(r.toolCalls[0].toolName, 'set_unit');
      assert.ok(['celsius', 'fahrenheit'].includes(r.toolCalls[0].input.unit), JSON.stringify(r.toolCalls));
    });

    test(`${name}: structured output`, async () => {
      const r = await generateText({
        model: providers[name],
        prompt: 'Pick a unit as JSON',
        output: Output.object({ schema: jsonSchema(UNIT_SCHEMA), name: 'unit' }),
        maxOutputTokens: 200,
        temperature: 1,
        maxRetries: 0,
      });
      assert.ok(['celsius', 'fahrenheit'].includes(r.output.unit), JSON.stringify(r.output));
      assert.equal(typeof r.output.precise, 'boolean');
    });
  }
});
