// Images in the web UI's chat, in Chromium: attached with the file picker, pasted (a ClipboardEvent)
// and dropped (a DataTransfer), shown as thumbnails that can be removed, sent as OpenAI image_url
// parts with data URIs to `vision` (a synthetic model with an mlp projector, which answers with
// the images' embeddings in its prompt), shown in the user's turn and kept with the conversation
// across a reload; refused in the browser when too big or of an unknown format, the attach control
// off for `tiny` (no projector), and the server's refusal shown in the conversation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { browserSkip, launchChromium, waitFor } from './browser.js';
import { startImageServer } from './image-server.js';
import { png, pngDataUri } from './png.js';

const here = import.meta.dirname ?? new URL('.', import.meta.url).pathname;
const SHOTS = join(here, '../../../target/webui-screenshots');
const KEY = 'ui-images-key';
const VISION = 'vision';
const PLAIN = 'tiny';
// The embeddings the tiny mlp projector of `forge model synth` makes of any image (ModelSynthCommandTest
// pins it): what one more image adds to a prompt that has one (parts are joined as llama-server joins
// them, with no line break before or after an image's marker).
const TOKENS_PER_IMAGE = 16;

const RED = png(32, 32, (x, y) => [200 + (x % 8), 16 * (y % 4), 20]);
const BLUE = png(24, 40, (x, y) => [10, 4 * y, 220 - x]);
const GREEN = png(16, 16, () => [20, 180, 60]);

describe('web UI images in Chromium', { skip: browserSkip }, () => {
  let server;
  let browser;
  let page;
  const consoleErrors = [];

  const message = () => page.getByLabel('Message', { exact: true });
  const thumbnails = () => page.getByRole('list', { name: 'Attached images' }).locator('img');
  const shot = (name) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startImageServer(KEY, [], {
      models: [['vision.gguf', '--mmproj', 'mmproj-vision.gguf', '--mmproj-family', 'mlp']],
    });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 820 } });
    await context.addInitScript((key) => sessionStorage.setItem('forge.apiKey', key), KEY);
    page = await context.newPage();
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    await page.goto(server.base);
    await page.locator('#model-select option').nth(1).waitFor({ state: 'attached' });
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** Pastes `files` ([name, bytes, type]) into the composer as a clipboard paste does. */
  const paste = (files) => page.locator('#composer-input').evaluate((area, list) => {
    const data = new DataTransfer();
    for (const [name, bytes, type] of list) data.items.add(new File([new Uint8Array(bytes)], name, { type }));
    area.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, files.map(([name, bytes, type]) => [name, [...bytes], type]));

  /** Drags `files` over the conversation and drops them, as a file manager does. */
  const drop = async (files) => {
    const data = await page.evaluateHandle((list) => {
      const d = new DataTransfer();
      for (const [name, bytes, type] of list) d.items.add(new File([new Uint8Array(bytes)], name, { type }));
      return d;
    }, files.map(([name, bytes, type]) => [name, [...bytes], type]));
    await page.dispatchEvent('section.thread', 'dragenter', { dataTransfer: data });
    await page.dispatchEvent('section.thread', 'dragover', { dataTransfer: data });
    await page.dispatchEvent('section.thread', 'drop', { dataTransfer: data });
  };

  const decoded = (img) => img.evaluate((i) => i.complete && i.naturalWidth > 0);

  test('a model without a vision projector: the attach control is off and says why; a paste is refused', async () => {
    await page.getByLabel('Model', { exact: true }).selectOption(PLAIN);
    const button = page.getByRole('button', { name: 'Attach image', exact: true });
    assert.equal(await button.isDisabled(), true);
    const why = `${PLAIN} has no vision projector, so it cannot read images (serve it with --mmproj).`;
    assert.equal(await page.locator('.composer .attach').getAttribute('title'), why, 'the tooltip says why');
    assert.equal(await button.evaluate((b) => document.getElementById(b.getAttribute('aria-describedby'))?.textContent), why);
    await paste([['shot.png', RED, 'image/png']]);
    assert.equal(await page.locator('.attach-error').textContent(), why);
    assert.equal(await thumbnails().count(), 0);
    await page.getByLabel('Model', { exact: true }).selectOption(VISION);
    assert.equal(await button.isDisabled(), false);
    assert.match(await page.locator('.composer .attach').getAttribute('title'), /^Attach images/);
  });

  test('the file picker, a paste and a drop each attach a thumbnail; a thumbnail can be removed', async () => {
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Attach image', exact: true }).click();
    await (await chooser).setFiles({ name: 'red.png', mimeType: 'image/png', buffer: RED });
    await thumbnails().first().waitFor();
    assert.equal(await thumbnails().first().getAttribute('alt'), 'red.png');
    assert.ok(await decoded(thumbnails().first()), 'the thumbnail shows the image');

    await message().fill('What is');
    await paste([['image.png', BLUE, 'image/png']]);
    await thumbnails().nth(1).waitFor();
    assert.equal(await message().inputValue(), 'What is', 'the paste attached the image and typed nothing');

    await drop([['green.png', GREEN, 'image/png']]);
    await thumbnails().nth(2).waitFor();
    assert.deepEqual(await thumbnails().evaluateAll((l) => l.map((i) => i.alt)), ['red.png', 'image.png', 'green.png']);
    assert.ok(await decoded(thumbnails().nth(2)));

    // the same image again is attached once
    await paste([['again.png', RED, 'image/png']]);
    await drop([['green-copy.png', GREEN, 'image/png']]);
    assert.equal(await thumbnails().count(), 3);

    await page.getByRole('button', { name: 'Remove green.png' }).click();
    assert.deepEqual(await thumbnails().evaluateAll((l) => l.map((i) => i.alt)), ['red.png', 'image.png']);
    await shot('10-images-attached');
  });

  test('too big, or not an image the server reads: refused in the browser with the reason', async () => {
    // 9 MiB made in the page (a PNG's first bytes, then zeros): handing it over from here would take seconds
    await page.locator('section.thread').evaluate((thread, head) => {
      const huge = new Uint8Array(9 * 1024 * 1024);
      huge.set(head);
      const data = new DataTransfer();
      data.items.add(new File([huge], 'huge.png', { type: 'image/png' }));
      data.items.add(new File([new TextEncoder().encode('RIFF\u0000\u0000\u0000\u0000WEBPVP8 ')], 'photo.webp', { type: 'image/webp' }));
      thread.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    }, [...RED.subarray(0, 64)]);
    await page.locator('.attach-error').filter({ hasText: 'huge.png' }).waitFor();
    assert.equal(await page.locator('.attach-error').textContent(),
      'huge.png is 9.0 MB; images up to 8.0 MB are accepted. photo.webp is not a PNG, JPEG, GIF or BMP image (WebP is not supported).');
    assert.equal(await thumbnails().count(), 2, 'the attached ones stay, nothing was added');
    // a file whose name says PNG but whose bytes do not
    await drop([['fake.png', Buffer.from('not an image at all'), 'image/png']]);
    await page.locator('.attach-error').filter({ hasText: 'fake.png is not a PNG, JPEG, GIF or BMP image.' }).waitFor();
  });

  test('sent as image_url data-URI parts before the text, shown in the turn, answered by the vision model', async () => {
    await page.getByLabel('Max tokens').fill('4');
    await page.getByLabel('Temperature').fill('0');
    await message().fill('What is this?');
    const request = page.waitForRequest((r) => r.url().endsWith('/v1/chat/completions'));
    const response = page.waitForResponse((r) => r.url().endsWith('/v1/chat/completions'));
    await message().press('Enter');
    const body = (await request).postDataJSON();
    assert.equal(body.model, VISION);
    assert.deepEqual(body.messages.at(-1), {
      role: 'user',
      content: [
        { type: 'image_url', image_url: { url: pngDataUri(RED) } },
        { type: 'image_url', image_url: { url: pngDataUri(BLUE) } },
        { type: 'text', text: 'What is this?' },
      ],
    });
    assert.equal(await thumbnails().count(), 0, 'the composer is empty again');
    const turn = page.locator('.message.user').last();
    const shown = turn.getByRole('list', { name: 'Images' }).locator('img');
    await shown.nth(1).waitFor();
    assert.deepEqual(await shown.evaluateAll((l) => l.map((i) => i.alt)), ['red.png', 'image.png']);
    assert.ok(await decoded(shown.first()) && await decoded(shown.nth(1)), 'the turn shows both images');
    assert.equal(await turn.locator('.content').textContent(), 'What is this?');
    // a real answer, whose prompt held both images' embeddings
    const answer = page.locator('.message.assistant').last();
    await answer.and(page.locator('[data-finish="stop"], [data-finish="length"]')).waitFor({ timeout: 60_000 });
    assert.equal(await answer.getByRole('alert').count(), 0, 'no error');
    assert.equal(await answer.locator('.role').textContent(), VISION);
    assert.equal((await response).status(), 200);
    // The page's request again, whole, against the same turn with its first image only: the second
    // image's embeddings are what the page's prompt has more.
    const post = (path, json) => fetch(`${server.base}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(json),
    }).then((r) => r.json());
    const [image, , text] = body.messages.at(-1).content;
    const two = await post('/v1/chat/completions', { ...body, stream: false, stream_options: undefined });
    const one = await post('/v1/chat/completions', { ...body, stream: false, stream_options: undefined, messages: [{ role: 'user', content: [image, text] }] });
    assert.equal(two.usage.prompt_tokens - one.usage.prompt_tokens, TOKENS_PER_IMAGE, 'both images are in the prompt');
    await shot('11-images-answered');
  });

  test('kept with the conversation: after a reload the turn shows its images and the next turn sends them again', async () => {
    const stored = await page.evaluate(() => localStorage.getItem('forge.conversations'));
    const turn = JSON.parse(stored)[0].messages.findLast((m) => m.role === 'user');
    assert.deepEqual(turn.images.map((i) => [i.name, i.type]), [['red.png', 'image/png'], ['image.png', 'image/png']]);
    assert.ok(!stored.includes('base64'), 'the bytes are not in localStorage');
    await page.reload();
    const shown = page.locator('.message.user').last().getByRole('list', { name: 'Images' }).locator('img');
    await shown.nth(1).waitFor();
    await page.waitForFunction(() => [...document.querySelectorAll('.message.user img')].every((i) => i.complete && i.naturalWidth > 0));
    const request = page.waitForRequest((r) => r.url().endsWith('/v1/chat/completions'));
    await message().fill('And again?');
    await message().press('Enter');
    const sent = (await request).postDataJSON().messages.filter((m) => m.role === 'user');
    assert.deepEqual(sent.at(-2).content.slice(0, 2).map((p) => p.image_url.url), [pngDataUri(RED), pngDataUri(BLUE)]);
    assert.equal(sent.at(-1).content, 'And again?', 'a turn without images stays plain text');
    await page.locator('.message.assistant').nth(1).and(page.locator('[data-finish="stop"], [data-finish="length"]')).waitFor({ timeout: 60_000 });
  });

  test('an image sent to a model without a projector: the server refuses, and the conversation says so', async () => {
    await paste([['green.png', GREEN, 'image/png']]);
    await thumbnails().first().waitFor();
    // attached for the vision model, then the model changed: the thumbnail stays, the control is off
    await page.getByLabel('Model', { exact: true }).selectOption(PLAIN);
    assert.equal(await page.getByRole('button', { name: 'Attach image', exact: true }).isDisabled(), true);
    await message().fill('And this one?');
    await message().press('Enter');
    const error = page.locator('.message.assistant').last().getByRole('alert');
    await error.waitFor();
    assert.match(await error.textContent(), new RegExp(`model ${PLAIN} has no vision projector`));
    assert.match(await page.getByRole('status').textContent(), /^Failed: model tiny has no vision projector/);
    await shot('12-images-refused');
  });

  test('export carries the images; deleting the conversation deletes them; importing brings them back', async () => {
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export JSON' }).click();
    const file = join(SHOTS, 'conversations-with-images.json');
    await (await download).saveAs(file);
    const exported = JSON.parse(readFileSync(file, 'utf8'));
    const turn = exported.conversations[0].messages.find((m) => m.images);
    assert.deepEqual(turn.images.map((i) => exported.images[i.id]), [pngDataUri(RED), pngDataUri(BLUE)]);
    assert.equal(Object.keys(exported.images).length, 3, 'the refused turn\'s image too');
    const storedIds = () => page.evaluate(() => new Promise((ok, fail) => {
      const open = indexedDB.open('forge.images');
      open.onsuccess = () => {
        const keys = open.result.transaction('images').objectStore('images').getAllKeys();
        keys.onsuccess = () => { ok(keys.result); open.result.close(); };
        keys.onerror = () => fail(keys.error);
      };
    }));
    assert.deepEqual(new Set(await storedIds()), new Set(Object.keys(exported.images)));
    await page.getByRole('button', { name: 'Delete' }).click();
    await waitFor(async () => (await storedIds()).length === 0, 'the deleted conversation\'s images gone from the store');
    await page.getByLabel('Import conversations (JSON file)').setInputFiles(file);
    await page.getByText('Imported 1 conversation.').waitFor();
    await page.getByRole('button', { name: 'What is this?' }).click();
    const shown = page.locator('.message.user').first().getByRole('list', { name: 'Images' }).locator('img');
    await shown.nth(1).waitFor();
    await page.waitForFunction(() => [...document.querySelectorAll('.message.user img')].every((i) => i.complete && i.naturalWidth > 0));
    assert.deepEqual(consoleErrors.filter((e) => !/Failed to load resource|400/.test(e)), []);
  });
});
