// Images through the official client SDKs against ForgeLM's jlink image: the openai package
// (chat image_url parts with data URIs), the Anthropic SDK (image blocks with a base64 source) and
// the AI SDK (image parts through the OpenAI-compatible provider). A model without a projector
// refuses images with a 400 each SDK raises as its own error type, with the server's message.
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

describe('images through the client SDKs', () => {
  let server;
  let openai;
  let anthropic;
  let forge;

  before(async () => {
    server = await startImageServer('vision-key');
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
