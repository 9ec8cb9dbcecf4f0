// The web UI at / of ForgeLM's jlink image, in a real browser: Playwright (playwright-core) driving
// Debian's Chromium (`command -v chromium`; .ci/run installs it). Two models (qwen and llama
// families), --api-key on. Screenshots go to dist/target/webui-screenshots/ as test artifacts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { browserSkip, launchChromium, waitFor } from './browser.js';
import { startImageServer } from './image-server.js';

const here = import.meta.dirname ?? new URL('.', import.meta.url).pathname;
const SHOTS = join(here, '../../../target/webui-screenshots');
const KEY = 'ui-key';
const SLOW_SHAPE = ['--embd', '512', '--layers', '8', '--ffn', '1024', '--heads', '8', '--kv-heads', '2'];

describe('web UI in Chromium', { skip: browserSkip }, () => {
  let server;
  let browser;
  let context;
  let page;
  const foreign = [];
  // API calls made without the key once the user gave it (the page's own files need none)
  const keyless = [];
  let keyGiven = false;
  let consoleErrors = [];

  const api = async (path, init = {}) => {
    const r = await fetch(`${server.base}${path}`, { ...init, headers: { Authorization: `Bearer ${KEY}`, ...(init.headers ?? {}) } });
    return r.headers.get('content-type')?.includes('json') ? r.json() : r.text();
  };
  const shot = (name, p = page) => p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  const assistantMessages = () => page.locator('.message.assistant');

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // `slow` is wide enough to decode at a few dozen tokens/s: the stop test must stop a generation
    // that is still running, and the tiny models finish 900 tokens in well under a second.
    server = await startImageServer(KEY, ['--alias', 'qwen-alias'], {
      models: [['llama-tiny.gguf', '--family', 'llama'], ['slow.gguf', ...SLOW_SHAPE]],
    });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 820 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
    page = await context.newPage();
    page.on('request', (r) => {
      if (!r.url().startsWith(server.base) && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) foreign.push(r.url());
      const path = new URL(r.url()).pathname;
      const file = path === '/' || path.startsWith('/assets/') || path === '/favicon.svg';
      if (keyGiven && !file && r.url().startsWith(server.base) && r.headers().authorization !== `Bearer ${KEY}`) keyless.push(path);
    });
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    page.on('pageerror', (e) => consoleErrors.push(e.message));
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('asks for the API key, keeps it in sessionStorage, and every call carries it', async () => {
    await page.goto(server.base);
    const dialog = page.getByRole('dialog', { name: 'API key' });
    await dialog.waitFor();
    assert.match(await dialog.textContent(), /needs an API key/);
    await shot('01-key-prompt');
    const input = page.getByLabel(/The key this server was started with/);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'api-key-input', 'the key field has the focus');
    await input.fill('wrong-key');
    await input.press('Enter');
    await page.getByText('The server did not accept that key.').waitFor();
    await input.fill(KEY);
    const models = page.waitForResponse((r) => r.url().endsWith('/v1/models') && r.status() === 200);
    await page.getByRole('button', { name: 'Use key' }).click();
    keyGiven = true;
    const ok = await models;
    assert.equal(ok.request().headers().authorization, `Bearer ${KEY}`);
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await page.evaluate(() => sessionStorage.getItem('forge.apiKey')), KEY);
    assert.ok(!(await page.evaluate(() => JSON.stringify(localStorage))).includes(KEY), 'the key is not in localStorage');
    // the picker lists every name of every model, aliases included
    const options = await page.locator('#model-select option').allTextContents();
    assert.deepEqual(options, ['tiny', 'qwen-alias (alias of tiny)', 'llama-tiny', 'slow']);
  });

  test('a chat streams, with the response timings shown', async () => {
    await page.getByLabel('Temperature').fill('0');
    // Enough tokens that the stream spans many frames: the tiny model streams ~1,500 tokens/s.
    await page.getByLabel('Max tokens').fill('300');
    await page.getByLabel('Seed').fill('7');
    await page.getByLabel('System prompt').fill('Be brief.');
    // Record what the answer shows while it streams: more than one partial text means it streamed.
    await page.evaluate(() => {
      window.partials = new Set();
      new MutationObserver(() => {
        const last = [...document.querySelectorAll('.message.assistant .content')].at(-1);
        if (last) window.partials.add(last.textContent.length);
      }).observe(document.querySelector('.messages'), { subtree: true, childList: true, characterData: true });
    });
    const request = page.waitForRequest((r) => r.url().endsWith('/v1/chat/completions'));
    const response = page.waitForResponse((r) => r.url().endsWith('/v1/chat/completions'));
    await page.getByLabel('Message', { exact: true }).fill('Hello there');
    await page.getByLabel('Message', { exact: true }).press('Enter');
    const body = (await request).postDataJSON();
    assert.equal(body.stream, true);
    assert.equal(body.model, 'tiny');
    assert.equal(body.temperature, 0);
    assert.equal(body.max_tokens, 300);
    assert.equal(body.seed, 7);
    assert.deepEqual(body.messages, [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello there' }]);
    assert.equal((await request).headers().authorization, `Bearer ${KEY}`);
    assert.match((await response).headers()['content-type'], /text\/event-stream/);
    await page.locator('.message.assistant[data-finish="length"]').waitFor({ timeout: 60_000 });
    const partials = await page.evaluate(() => window.partials.size);
    assert.ok(partials > 2, `the answer grew while it streamed (${partials} distinct lengths)`);
    const timings = await assistantMessages().last().locator('.timings').textContent();
    assert.match(timings, /TTFT \d+ ms · [\d.]+ tok\/s · 300 tokens/);
    assert.equal(await assistantMessages().last().locator('.role').textContent(), 'tiny');
    await page.getByRole('button', { name: 'Send' }).waitFor();
    await shot('02-chat');
  });

  test('copy and regenerate', async () => {
    await assistantMessages().last().getByRole('button', { name: 'Copy' }).click();
    await assistantMessages().last().getByRole('button', { name: 'Copied' }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('forge.conversations'))[0].messages.at(-1).content);
    assert.ok(copied.length > 0);
    assert.equal(copied, stored, 'the copied text is the answer (its Markdown source)');
    // The regenerated answer stays in the conversation the later tests continue: a short one, as the
    // first answer was before it grew to 300 tokens (llama-tiny's tokenizer counts this random text
    // at about a token a character, against its 1,024-token slot).
    await page.getByLabel('Max tokens').fill('24');
    const request = page.waitForRequest((r) => r.url().endsWith('/v1/chat/completions'));
    await page.getByRole('button', { name: 'Regenerate' }).click();
    const body = (await request).postDataJSON();
    assert.deepEqual(body.messages.map((m) => m.role), ['system', 'user'], 'the old answer is not sent again');
    await page.locator('.message.assistant[data-finish="length"]').waitFor({ timeout: 60_000 });
    assert.equal(await assistantMessages().count(), 1, 'the answer was replaced');
  });

  // Before the stop test: its stopped answer has a length of its own each run, and a random model's
  // greedy answer to a conversation holding it could end in an end-of-text within 8 tokens.
  test('model switch: the next message goes to the model picked', async () => {
    await page.getByLabel('Max tokens').fill('8');
    await page.getByLabel('Model', { exact: true }).selectOption('llama-tiny');
    const request = page.waitForRequest((r) => r.url().endsWith('/v1/chat/completions'));
    const answers = await assistantMessages().count();
    await page.getByLabel('Message', { exact: true }).fill('And you?');
    await page.getByLabel('Message', { exact: true }).press('Enter');
    assert.equal((await request).postDataJSON().model, 'llama-tiny');
    await assistantMessages().nth(answers).and(page.locator('[data-finish="length"]')).waitFor({ timeout: 60_000 });
    assert.equal(await assistantMessages().last().locator('.role').textContent(), 'llama-tiny');
    assert.ok(await generatedBy('llama-tiny') > 0, 'the llama model served it');
    // back to an alias: the request names the alias
    await page.getByLabel('Model', { exact: true }).selectOption('qwen-alias');
    assert.equal(await page.getByLabel('Model', { exact: true }).inputValue(), 'qwen-alias');
  });

  test('stop cancels the generation on the server: the slot is free in /slots', async () => {
    await page.getByLabel('Model', { exact: true }).selectOption('slow');
    await page.getByLabel('Max tokens').fill('900');
    const before499 = await cancelledChats();
    await page.getByLabel('Message', { exact: true }).fill('Tell me a long story');
    await page.getByLabel('Message', { exact: true }).press('Enter');
    // Wait until the server is generating for it, then stop.
    await waitFor(async () => (await api('/slots?model=slow')).some((s) => s.state === 'decode'), 'a slow slot decoding');
    await page.locator('.message.assistant').last().locator('.content').filter({ hasText: /\S/ }).waitFor();
    await shot('03-streaming');
    const stoppedAt = Date.now();
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('.message.assistant[data-finish="stopped"]').waitFor();
    await waitFor(async () => (await api('/slots?model=slow')).every((s) => !s.is_processing), 'every slow slot idle', 5_000);
    const freedIn = Date.now() - stoppedAt;
    assert.ok(freedIn < 5_000, `the slot was freed ${freedIn} ms after Stop, long before 900 tokens`);
    await waitFor(async () => (await cancelledChats()) > before499, 'the server counted the chat as cancelled by its client (499)');
    assert.match(await page.getByRole('status').textContent(), /Stopped/);
    await page.getByRole('button', { name: 'Send' }).waitFor();
  });

  test('conversations stay in the browser across a reload, and export and import as JSON', async () => {
    const title = await page.locator('.conversation[aria-current="true"]').textContent();
    await page.reload();
    await page.locator('.message.assistant').first().waitFor();
    assert.equal(await page.locator('.conversation[aria-current="true"]').textContent(), title);
    assert.ok(await assistantMessages().count() >= 2);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export JSON' }).click();
    const file = join(SHOTS, 'conversations.json');
    await (await download).saveAs(file);
    const exported = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(exported.format, 'forgelm-conversations');
    assert.equal(exported.conversations.length, 1);
    assert.ok(exported.conversations[0].messages.some((m) => m.role === 'assistant' && m.timings?.predicted_n > 0));
    const renamed = { ...exported, conversations: [{ ...exported.conversations[0], title: 'Imported chat' }] };
    writeFileSync(file, JSON.stringify(renamed));
    await page.getByLabel('Import conversations (JSON file)').setInputFiles(file);
    await page.getByText('Imported 1 conversation.').waitFor();
    assert.deepEqual(await page.locator('.conversation').allTextContents(), ['Imported chat', title]);
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('forge.conversations')));
    assert.equal(new Set(stored.map((c) => c.id)).size, 2, 'the import got an id of its own');
  });

  test('reasoning is folded apart, tool calls shown as such, Markdown code highlighted', async () => {
    // The synthetic model writes noise: a canned stream in the server's own chunk shape shows how the UI renders the rest.
    const chunk = (delta, extra = {}) => `data: ${JSON.stringify({ object: 'chat.completion.chunk', model: 'tiny', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
    const sse = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ reasoning_content: 'The user wants code. ' }),
      chunk({ reasoning_content: 'Python fits.' }),
      chunk({ content: 'Here:\n\n```python\ndef add(a, b):\n    return a + b\n```\n' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], timings: { ttft_ms: 12.5, predicted_per_second: 33.3, predicted_n: 20, prompt_n: 9, cache_n: 4 } })}\n\n`,
      'data: [DONE]\n\n',
    ].join('');
    await page.route('**/v1/chat/completions', (route) => route.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: sse }));
    await page.getByLabel('Message', { exact: true }).fill('Write add() in Python and check the weather');
    await page.getByLabel('Message', { exact: true }).press('Enter');
    const answer = page.locator('.message.assistant[data-finish="tool_calls"]');
    await answer.waitFor();
    await page.unroute('**/v1/chat/completions');
    const reasoning = answer.locator('details.reasoning');
    assert.equal(await reasoning.getAttribute('open'), null, 'folded');
    assert.ok(!(await answer.locator('.content').textContent()).includes('Python fits'), 'apart from the answer');
    await reasoning.locator('summary').click();
    assert.equal(await answer.locator('.reasoning-text').textContent(), 'The user wants code. Python fits.');
    assert.equal(await answer.locator('.tool-call code').textContent(), 'get_weather');
    assert.deepEqual(JSON.parse(await answer.locator('.tool-args').textContent()), { city: 'Paris' });
    assert.equal(await answer.locator('pre.code code.language-python .hljs-keyword').first().textContent(), 'def');
    assert.match(await answer.locator('.timings').textContent(), /TTFT 13 ms · 33.3 tok\/s · 20 tokens · prompt 9 \+ 4 cached/);
    await shot('04-reasoning-tools');
  });

  test('template preview: the prompt and the plugin that rendered it', async () => {
    await page.getByRole('link', { name: 'Template' }).click();
    await page.getByLabel('Model', { exact: true }).selectOption('tiny');
    await page.locator('.template-plugin').filter({ hasText: 'forge.template.qwen' }).waitFor();
    assert.match(await page.getByLabel('Rendered prompt').textContent(), /<\|im_start\|>user\nHello!<\|im_end\|>\n<\|im_start\|>assistant\n$/);
    await page.getByLabel('Model', { exact: true }).selectOption('llama-tiny');
    await page.locator('.template-plugin').filter({ hasText: 'forge.template.llama' }).waitFor();
    assert.match(await page.getByLabel('Rendered prompt').textContent(), /<\|start_header_id\|>user<\|end_header_id\|>/);
    await shot('05-template');
  });

  test('the dashboard updates while a request runs, without reloading', async () => {
    await page.getByRole('link', { name: 'Dashboard' }).click();
    await page.evaluate(() => { window.notReloaded = true; });
    await page.locator('tr[data-model="llama-tiny"] .state.loaded').waitFor();
    const models = page.locator('table.models tbody tr');
    assert.equal(await models.count(), 3);
    const tinyRow = await page.locator('tr[data-model="tiny"]').textContent();
    assert.match(tinyRow, /qwen-alias/);
    assert.match(tinyRow, /qwen2\.5 · forge\.template\.qwen/);
    assert.match(await page.locator('tr[data-model="llama-tiny"]').textContent(), /llama3\.1 · forge\.template\.llama/);
    assert.match(tinyRow, /1024/);
    assert.match(tinyRow, /llama/i, 'the backend');
    assert.equal(await page.locator('table.slots tbody tr').count(), 6, 'two slots per model');
    // A long request from outside the page: the dashboard must see it run, then see it end.
    const long = new AbortController();
    const request = () => fetch(`${server.base}/v1/chat/completions`, {
      method: 'POST',
      signal: long.signal,
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'tiny', max_tokens: 900, ignore_eos: true, stream: true, messages: [{ role: 'user', content: 'Count' }] }),
    });
    const streaming = await request();
    assert.equal(streaming.status, 200);
    // The tiny model streams ~1,500 tokens/s, so one request can end before the dashboard's next
    // poll: one request after another keeps the slot decoding until the test aborts them.
    const keepBusy = (async () => {
      for (let r = streaming; ; r = await request()) {
        await r.text();
      }
    })().catch(() => {});
    await page.locator('tr[data-slot^="tiny/"] .state.decode').first().waitFor({ timeout: 30_000 });
    await page.locator('#gauge-busy').filter({ hasText: /^1 \/ 6$/ }).waitFor();
    // tokens per second while it runs, not only once it is over
    await waitFor(async () => /generated [1-9]/.test(await page.locator('.latest[data-chart="Throughput"]').textContent()),
      'the throughput chart shows the running generation');
    await shot('06-dashboard-busy');
    long.abort();
    await keepBusy;
    await page.locator('table.slots .state.decode').first().waitFor({ state: 'detached', timeout: 30_000 });
    await page.locator('#gauge-busy').filter({ hasText: /^0 \/ 6$/ }).waitFor();
    // and a finished one for the speed charts
    const done = await api('/v1/chat/completions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'tiny', max_tokens: 40, ignore_eos: true, messages: [{ role: 'user', content: 'Count' }] }),
    });
    assert.equal(done.usage.completion_tokens, 40);
    await waitFor(async () => /p50 \d+ ms, p95 \d+ ms/.test(await page.locator('.latest[data-chart="Time to first token"]').textContent()),
      'a TTFT p50 and p95 point');
    assert.match(await page.locator('.latest[data-chart="Decode speed"]').textContent(), /p50 \d+ tok\/s, p95 \d+ tok\/s/);
    assert.equal(await page.evaluate(() => window.notReloaded), true, 'the page was not reloaded');
    await shot('07-dashboard');
  });

  test('readable at phone width, every control labelled, nothing fetched from elsewhere', async () => {
    const phone = await context.newPage();
    // sessionStorage belongs to one tab: a new tab would ask for the key again
    await phone.addInitScript((key) => sessionStorage.setItem('forge.apiKey', key), KEY);
    await phone.setViewportSize({ width: 390, height: 844 });
    for (const view of ['chat', 'template', 'dashboard']) {
      await phone.goto(`${server.base}/#/${view}`);
      await phone.locator('main').waitFor();
      await phone.waitForTimeout(view === 'dashboard' ? 2500 : 500);
      const width = await phone.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `${view}: no sideways scrolling at 390 px (page is ${width} px wide)`);
      const unlabelled = await phone.evaluate(() => [...document.querySelectorAll('input, select, textarea, button')]
        .filter((e) => !(e.labels?.length || e.getAttribute('aria-label') || e.textContent.trim()))
        .map((e) => e.outerHTML.slice(0, 80)));
      assert.deepEqual(unlabelled, [], `${view}: every control has a label`);
      await shot(`08-phone-${view}`, phone);
    }
    // keyboard: Tab from the top reaches the views' links and then the page
    await phone.goto(`${server.base}/#/chat`);
    await phone.keyboard.press('Tab');
    assert.equal(await phone.evaluate(() => document.activeElement.textContent), 'Skip to content');
    await phone.close();
    assert.deepEqual(foreign, [], 'every request went to the server itself');
    assert.deepEqual(keyless, [], 'every API call carried the key');
    assert.deepEqual(consoleErrors.filter((e) => !/401|Unauthorized|Failed to load resource/.test(e)), []);
  });

  test('the dashboard reads GET /models (llama-server router shape) when the server answers it', async () => {
    const router = await context.newPage();
    await router.addInitScript((key) => sessionStorage.setItem('forge.apiKey', key), KEY);
    // as the catalog's router route answers: status per model, llama-server's shape, extra fields ignored
    await router.route((url) => url.pathname === '/models', (route) => route.fulfill({
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ object: 'list', data: [
        { id: 'llama-tiny', aliases: ['l'], status: { value: 'loading' }, extra: 1 },
        { id: 'tiny', aliases: ['qwen-alias'], status: { value: 'unloaded' } },
      ] }),
    }));
    await router.goto(`${server.base}/#/dashboard`);
    await router.locator('tr[data-model="llama-tiny"] .state.loading').waitFor();
    assert.deepEqual(await router.locator('table.models tbody th').allTextContents(), ['llama-tiny (l)', 'tiny (qwen-alias)'], 'the router list, in its order');
    assert.match(await router.locator('tr[data-model="tiny"]').textContent(), /unloaded.*qwen2\.5 · forge\.template\.qwen.*1024/);
    await shot('09-dashboard-router-models', router);
    await router.close();
  });

  async function generatedBy(model) {
    const text = await api('/metrics');
    const line = text.split('\n').find((l) => l.startsWith(`forge_completion_tokens_total{model="${model}"}`));
    return line ? Number(line.split(' ').at(-1)) : 0;
  }

  async function cancelledChats() {
    const text = await api('/metrics');
    const line = text.split('\n').find((l) => l.startsWith('forge_http_requests_total{') && l.includes('route="/v1/chat/completions"') && l.includes('status="499"'));
    return line ? Number(line.split(' ').at(-1)) : 0;
  }
});
