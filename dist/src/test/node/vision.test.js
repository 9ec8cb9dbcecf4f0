// Images through the official client SDKs against ForgeLM's jlink image: the openai package
// (chat image_url parts with data URIs, whole and streamed), the Anthropic SDK (image blocks with a
// base64 source) and the AI SDK (image parts through the OpenAI-compatible provider), to `vision`,
// a synthetic model with a random-weight mlp projector (`forge model synth --mmproj`). The answer
// is noise; what is checked is that the image reached the model: its embeddings count in the
// usage. A model without a projector (`tiny`) refuses images with a 400 each SDK raises as its
// own error type, with the server's message.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateText } from 'ai';
import OpenAI from 'openai';
import { startImageServer } from './image-server.js';
import { png, pngDataUri } from './png.js';

const IMAGE = png(32, 32, (x, y) => [8 * x, 8 * y, 255 - 4 * (x + y)]);
const NO_PROJECTOR = /model tiny has no vision projector/;
// The embeddings the tiny mlp projector of `forge model synth` makes of any image (its output says
// so; ModelSynthCommandTest pins it): what one more image adds to a prompt that has one, besides
// what joins the parts (the first adds a token or so more: the text around it is tokenized in two
// pieces, as llama.cpp does).
const TOKENS_PER_IMAGE = 16;

describe('images through the client SDKs', () => {
  let server;
  let openai;
  let anthropic;
  let forge;

  before(async () => {
    server = await startImageServer('vision-key', [], {
      models: [['vision.gguf', '--mmproj', 'mmproj-vision.gguf', '--mmproj-family', 'mlp']],
    });
    openai = new OpenAI({ baseURL: `${server.base}/v1`, apiKey: server.key, maxRetries: 0, timeout: 60_000 });
    anthropic = new Anthropic({ baseURL: server.base, apiKey: server.key, maxRetries: 0, timeout: 60_000 });
    forge = createOpenAICompatible({ name: 'forge', baseURL: `${server.base}/v1`, apiKey: server.key, includeUsage: true });
  });

  after(async () => {
    await server?.stop();
  });

  const openaiImage = (model) => ({
    model,
    max_tokens: 4,
    temperature: 0,
    messages: [{ role: 'user', content: [
      { type: 'image_url', image_url: { url: pngDataUri(IMAGE) } },
      { type: 'text', text: 'What is in this image?' },
    ] }],
  });

  const anthropicImage = (model) => ({
    model,
    max_tokens: 4,
    temperature: 0,
    messages: [{ role: 'user', content: [
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: IMAGE.toString('base64') } },
      { type: 'text', text: 'What is in this image?' },
    ] }],
  });

  const aiImage = (model) => ({
    model: forge.chatModel(model),
    maxOutputTokens: 4,
    temperature: 0,
    maxRetries: 0,
    messages: [{ role: 'user', content: [
      { type: 'image', image: IMAGE, mediaType: 'image/png' },
      { type: 'text', text: 'What is in this image?' },
    ] }],
  });

  const textOnly = (request) => ({
    ...request,
    messages: request.messages.map((m) => ({ ...m, content: m.content.filter((p) => p.type === 'text') })),
  });
  // the same request with its image twice
  const twice = (request) => ({
    ...request,
    messages: request.messages.map((m) => ({ ...m, content: [m.content[0], ...m.content] })),
  });
  /**
   * Checks that `one` image counts in the prompt against the request without it and with it twice:
   * a second image adds its embeddings and nothing else (parts are joined as llama-server joins
   * them, with no line break before or after an image's marker).
   */
  const counted = (one, none, two) => {
    assert.ok(one - none >= TOKENS_PER_IMAGE, `the image is in the prompt (${none} tokens without it, ${one} with it)`);
    assert.equal(two - one, TOKENS_PER_IMAGE, 'a second image adds its embeddings');
  };

  test('openai: an image_url data URI, whole and streamed, its embeddings counted in usage', async () => {
    const whole = await openai.chat.completions.create(openaiImage('vision'));
    assert.equal(whole.object, 'chat.completion');
    assert.equal(typeof whole.choices[0].message.content, 'string');
    assert.ok(['stop', 'length'].includes(whole.choices[0].finish_reason), whole.choices[0].finish_reason);
    assert.ok(whole.usage.completion_tokens > 0 && whole.usage.completion_tokens <= 4);
    assert.equal(whole.usage.total_tokens, whole.usage.prompt_tokens + whole.usage.completion_tokens);
    const none = await openai.chat.completions.create(textOnly(openaiImage('vision')));
    const two = await openai.chat.completions.create(twice(openaiImage('vision')));
    counted(whole.usage.prompt_tokens, none.usage.prompt_tokens, two.usage.prompt_tokens);

    const stream = await openai.chat.completions.create({ ...openaiImage('vision'), stream: true, stream_options: { include_usage: true } });
    const chunks = [];
    for await (const chunk of stream) {
      chunks.push(chunk);
    }
    assert.equal(chunks[0].choices[0].delta.role, 'assistant');
    const streamed = chunks.flatMap((c) => c.choices).map((c) => c.delta.content ?? '').join('');
    assert.equal(streamed, whole.choices[0].message.content, 'streamed and whole answers agree at temperature 0');
    assert.equal(chunks.at(-1).usage.prompt_tokens, whole.usage.prompt_tokens);
    assert.equal(chunks.at(-1).usage.completion_tokens, whole.usage.completion_tokens);
  });

  test('Anthropic: an image block with a base64 source, its embeddings counted in usage', async () => {
    const m = await anthropic.messages.create(anthropicImage('vision'));
    assert.equal(m.type, 'message');
    assert.ok(m.content.every((b) => b.type === 'text'), JSON.stringify(m.content));
    assert.ok(['end_turn', 'max_tokens'].includes(m.stop_reason), m.stop_reason);
    assert.ok(m.usage.output_tokens > 0 && m.usage.output_tokens <= 4);
    const none = await anthropic.messages.create(textOnly(anthropicImage('vision')));
    const two = await anthropic.messages.create(twice(anthropicImage('vision')));
    const input = (u) => u.input_tokens + (u.cache_read_input_tokens ?? 0);
    counted(input(m.usage), input(none.usage), input(two.usage));
  });

  test('AI SDK: an image part through the OpenAI-compatible provider, its embeddings counted in usage', async () => {
    const r = await generateText(aiImage('vision'));
    assert.equal(typeof r.text, 'string');
    assert.ok(['stop', 'length'].includes(r.finishReason), r.finishReason);
    assert.ok(r.usage.outputTokens > 0 && r.usage.outputTokens <= 4);
    assert.equal(r.response.modelId, 'vision');
    const none = await generateText(textOnly(aiImage('vision')));
    const two = await generateText(twice(aiImage('vision')));
    counted(r.usage.inputTokens, none.usage.inputTokens, two.usage.inputTokens);
  });

  test('openai: an image to a model without a projector is a BadRequestError with the reason, streamed or not', async () => {
    for (const stream of [false, true]) {
      await assert.rejects(openai.chat.completions.create({ ...openaiImage('tiny'), stream }), (e) => {
        assert.ok(e instanceof OpenAI.BadRequestError, String(e));
        assert.equal(e.status, 400);
        assert.match(e.message, NO_PROJECTOR);
        assert.equal(e.param, 'messages');
        return true;
      });
    }
  });

  test('Anthropic: an image block to a model without a projector is a BadRequestError with the reason', async () => {
    await assert.rejects(anthropic.messages.create(anthropicImage('tiny')), (e) => {
      assert.ok(e instanceof Anthropic.BadRequestError, String(e));
      assert.equal(e.status, 400);
      assert.equal(e.error?.error?.type, 'invalid_request_error');
      assert.match(e.message, NO_PROJECTOR);
      return true;
    });
  });

  test('AI SDK: an image part to a model without a projector is an APICallError with the reason', async () => {
    await assert.rejects(generateText(aiImage('tiny')), (e) => {
      assert.ok(APICallError.isInstance(e), String(e));
      assert.equal(e.statusCode, 400);
      assert.match(e.message, NO_PROJECTOR);
      assert.equal(e.isRetryable, false);
      return true;
    });
  });
});
