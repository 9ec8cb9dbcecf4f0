// The official `ollama` npm package (ollama-js), what Ollama-only tools are built on, against
// ForgeLM's jlink image: version, list, show, ps, chat and generate (whole and streamed), tool calls,
// format by schema, embed and embeddings, pull from a loopback hub; and the probe VS Code's Copilot
// Chat makes before it lists a model (version, tags, show per model, then /v1/chat/completions).
// The model is random-weight noise: structure, not wording.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ollama } from 'ollama';
import { closingBias, PERSON_SCHEMA, startImageServer, UNIT_SCHEMA } from './image-server.js';

const here = import.meta.dirname ?? new URL('.', import.meta.url).pathname;

/**
 * A Hugging Face hub on loopback serving one repo with one GGUF, as ForgeLM's pull reads a hub:
 * the file list, then each file's resolve URL redirecting to its blob (with the commit and etag
 * headers), the blob served whole or from a Range.
 */
async function startFakeHub(repo, file, bytes) {
  const sha = createHash('sha256').update(bytes).digest('hex');
  const commit = 'c0ffee0000000000000000000000000000000001';
  const server = createServer((req, res) => {
    const path = decodeURIComponent(req.url.replace(/\?.*/, ''));
    if (path === `/api/models/${repo}/revision/main`) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ id: repo, sha: commit, siblings: [{ rfilename: 'README.md' }, { rfilename: file }] }));
    } else if (path === `/${repo}/resolve/main/${file}`) {
      res.writeHead(302, {
        Location: `${base}/blob/${sha}?signature=x`, 'x-repo-commit': commit, 'x-linked-etag': `"${sha}"`,
        'x-linked-size': String(bytes.length), ETag: `"${sha}"`, 'Content-Length': '0',
      });
      res.end();
    } else if (path === `/blob/${sha}`) {
      const from = Number((/bytes=(\d+)-/.exec(req.headers.range ?? '') ?? [0, 0])[1]);
      const headers = { 'Accept-Ranges': 'bytes', 'Content-Length': String(bytes.length - from) };
      if (from > 0) {
        headers['Content-Range'] = `bytes ${from}-${bytes.length - 1}/${bytes.length}`;
      }
      res.writeHead(from > 0 ? 206 : 200, headers);
      res.end(req.method === 'HEAD' ? undefined : bytes.subarray(from));
    } else {
      res.writeHead(404);
      res.end('Entry not found');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const base = `http://127.0.0.1:${server.address().port}`;
  return { base, sha, close: () => new Promise((ok) => server.close(ok)) };
}

/** A second tiny GGUF for the hub to serve, made by the image's own `forge model synth`. */
function synthesize() {
  const image = resolve(process.env.FORGE_IMAGE ?? join(here, '../../../target/forge'));
  const forge = join(image, 'bin/forge');
  assert.ok(existsSync(forge), `no image at ${image}`);
  const work = mkdtempSync(join(tmpdir(), 'forge-hub-'));
  const file = join(work, 'pulled.gguf');
  execFileSync(forge, ['model', 'synth', '-o', file], { env: { PATH: '/usr/bin:/bin', HOME: work }, stdio: 'ignore' });
  const bytes = readFileSync(file);
  rmSync(work, { recursive: true, force: true });
  return bytes;
}

describe('ollama npm package', () => {
  let server;
  let hub;
  let ollama;

  before(async () => {
    hub = await startFakeHub('someone/Pulled-GGUF', 'pulled-Q8_0.gguf', synthesize());
    server = await startImageServer('ollama-key', ['--hf-endpoint', hub.base]);
    ollama = new Ollama({ host: server.base, headers: { Authorization: `Bearer ${server.key}` } });
  });

  after(async () => {
    await server?.stop();
    await hub?.close();
  });

  test('version, list, show, ps', async () => {
    const { version } = await ollama.version();
    assert.match(version, /^\d+\.\d+\.\d+$/);
    const { models } = await ollama.list();
    const tiny = models.find((m) => m.name === 'tiny');
    assert.ok(tiny, JSON.stringify(models));
    assert.equal(tiny.details.format, 'gguf');
    assert.ok(tiny.size > 0);
    assert.ok(tiny.modified_at instanceof Date || typeof tiny.modified_at === 'string');
    const show = await ollama.show({ model: 'tiny:latest' });
    assert.ok(show.capabilities.includes('completion') && show.capabilities.includes('tools'), JSON.stringify(show.capabilities));
    assert.ok(show.model_info['qwen2.context_length'] > 0, JSON.stringify(show.model_info));
    const ps = await ollama.ps();
    const loaded = ps.models.find((m) => m.name === 'tiny');
    assert.ok(loaded && loaded.context_length > 0, JSON.stringify(ps));
  });

  test('chat, whole and streamed', async () => {
    const request = { model: 'tiny', messages: [{ role: 'user', content: 'Hello' }], options: { num_predict: 6, temperature: 0 } };
    const whole = await ollama.chat(request);
    assert.equal(whole.done, true);
    assert.equal(whole.message.role, 'assistant');
    assert.ok(['stop', 'length'].includes(whole.done_reason), whole.done_reason);
    assert.ok(whole.eval_count > 0 && whole.eval_count <= 6);
    assert.ok(Number.isInteger(whole.total_duration) && whole.total_duration > 0);
    let text = '';
    let last;
    for await (const part of await ollama.chat({ ...request, stream: true })) {
      text += part.message.content;
      last = part;
    }
    assert.equal(last.done, true);
    assert.equal(last.eval_count, whole.eval_count);
    assert.equal(text, whole.message.content, 'streamed and whole agree at temperature 0');
  });

  test('chat with tools: the call comes back with object arguments', async () => {
    const tokenize = await fetch(`${server.base}/tokenize`, {
      method: 'POST', headers: { Authorization: `Bearer ${server.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ content: '<tool_call>' }),
    });
    const [open] = (await tokenize.json()).tokens;
    // Noise weights call when pushed to open a call; the grammar then keeps the call well formed.
    const bias = { ...(await closingBias(server)), [open]: 100 };
    const r = await ollama.chat({
      model: 'tiny', messages: [{ role: 'user', content: 'Weather in Paris?' }],
      // A bounded schema (an enum and a boolean): noise under the grammar completes it within a few tokens.
      tools: [{ type: 'function', function: { name: 'set_unit', description: 'Choose the unit', parameters: UNIT_SCHEMA } }],
      options: { num_predict: 300, temperature: 1, seed: 5, logit_bias: bias },
    });
    assert.equal(r.done_reason, 'stop', JSON.stringify(r));
    const call = r.message.tool_calls[0];
    assert.equal(call.function.name, 'set_unit');
    assert.equal(typeof call.function.arguments, 'object', JSON.stringify(call));
    assert.ok(['celsius', 'fahrenheit'].includes(call.function.arguments.unit), JSON.stringify(call));
    assert.equal(typeof call.function.arguments.precise, 'boolean');
    // The call and its result go back into the conversation.
    const next = await ollama.chat({
      model: 'tiny', options: { num_predict: 2 },
      messages: [{ role: 'user', content: 'Weather in Paris?' }, r.message, { role: 'tool', content: 'done', tool_name: 'set_unit' }],
    });
    assert.equal(next.done, true);
  });

  test('generate, whole and streamed, with format', async () => {
    const g = await ollama.generate({ model: 'tiny', prompt: 'Hello', system: 'Be brief.', options: { num_predict: 4 } });
    assert.equal(typeof g.response, 'string');
    assert.equal(g.done, true);
    let parts = 0;
    let last;
    for await (const part of await ollama.generate({ model: 'tiny', prompt: 'Hello', stream: true, options: { num_predict: 4 } })) {
      parts++;
      last = part;
    }
    assert.ok(parts >= 2);
    assert.equal(last.done, true);
    const person = await ollama.generate({
      model: 'tiny', prompt: 'A person', format: PERSON_SCHEMA,
      options: { num_predict: 300, temperature: 1, seed: 5, logit_bias: await closingBias(server) },
    });
    const parsed = JSON.parse(person.response);
    assert.equal(typeof parsed.name, 'string');
    assert.ok(Number.isInteger(parsed.age));
  });

  test('embed and embeddings', async () => {
    const e = await ollama.embed({ model: 'tiny', input: ['one', 'two'] });
    assert.equal(e.embeddings.length, 2);
    assert.ok(e.embeddings[0].length > 0);
    const old = await ollama.embeddings({ model: 'tiny', prompt: 'one' });
    assert.equal(old.embedding.length, e.embeddings[0].length);
  });

  test('errors come as ResponseError with Ollama\'s message', async () => {
    await assert.rejects(ollama.chat({ model: 'nobody', messages: [{ role: 'user', content: 'x' }] }), (e) => {
      assert.equal(e.status_code, 404);
      assert.match(e.error, /not found/);
      return true;
    });
    // The API key guards Ollama's routes as every other; the refusal is in Ollama's shape too.
    await assert.rejects(new Ollama({ host: server.base }).list(), (e) => {
      assert.equal(e.status_code, 401);
      assert.equal(typeof e.error, 'string');
      return true;
    });
    await assert.rejects(ollama.pull({ model: 'llama3.2' }), (e) => {
      assert.equal(e.status_code, 400);
      assert.match(e.error, /Ollama's registry/);
      return true;
    });
  });

  test('pull from the hub, streamed, then chat with the name pulled', async () => {
    const statuses = [];
    for await (const p of await ollama.pull({ model: 'hf.co/someone/Pulled-GGUF:Q8_0', stream: true })) {
      statuses.push(p.status);
      if (p.digest) {
        assert.equal(p.digest, `sha256:${hub.sha}`);
      }
    }
    assert.equal(statuses[0], 'pulling manifest');
    assert.equal(statuses.at(-1), 'success');
    const r = await ollama.chat({ model: 'hf.co/someone/Pulled-GGUF:Q8_0', messages: [{ role: 'user', content: 'hi' }], options: { num_predict: 2 } });
    assert.equal(r.done, true);
    const { models } = await ollama.list();
    assert.ok(models.some((m) => m.name === 'hf.co/someone/Pulled-GGUF:Q8_0'), JSON.stringify(models.map((m) => m.name)));
  });

  test('Copilot-style probe: version, tags, show per model, then /v1/chat/completions', async () => {
    const auth = { Authorization: `Bearer ${server.key}` };
    const version = (await (await fetch(`${server.base}/api/version`, { headers: auth })).json()).version;
    const [major, minor, patch] = version.split('.').map(Number);
    assert.ok(major > 0 || minor > 6 || (minor === 6 && patch >= 4), version);
    const tags = await (await fetch(`${server.base}/api/tags`, { headers: auth })).json();
    const usable = [];
    for (const m of tags.models) {
      const show = await (await fetch(`${server.base}/api/show`, {
        method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ model: m.model }),
      })).json();
      const arch = show.model_info['general.architecture'];
      assert.ok(show.model_info[`${arch}.context_length`] > 0, JSON.stringify(show.model_info));
      if (show.capabilities.includes('tools')) {
        usable.push(m.model);
      }
    }
    assert.ok(usable.includes('tiny'), JSON.stringify(usable));
    const r = await fetch(`${server.base}/v1/chat/completions`, {
      method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'tiny', max_tokens: 3, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(r.status, 200);
    assert.equal((await r.json()).object, 'chat.completion');
  });

  test('HEAD / and GET / answer as Ollama does for a client, the page for a browser', async () => {
    const head = await fetch(`${server.base}/`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await (await fetch(`${server.base}/`)).text(), 'Ollama is running');
    const page = await fetch(`${server.base}/`, { headers: { Accept: 'text/html' } });
    assert.match(await page.text(), /<div id="app"><\/div>/);
  });
});
