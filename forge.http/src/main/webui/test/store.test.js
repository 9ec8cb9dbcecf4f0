// node --test: conversations' export and import, without a browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportJson, FORMAT, importImages, importJson, newConversation } from '../src/store.js';

test('an export imports again, with new ids where they collide', () => {
  const c = { ...newConversation('tiny'), title: 'One', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'yo', timings: { ttft_ms: 3 } }] };
  const text = exportJson([c]);
  assert.equal(JSON.parse(text).format, FORMAT);
  const [again] = importJson(text, [c]);
  assert.notEqual(again.id, c.id);
  assert.deepEqual(again.messages, c.messages);
  assert.equal(importJson(text, [])[0].id, c.id, 'no collision: the id is kept');
});

test('one conversation or a list imports; anything else is refused', () => {
  const c = newConversation('tiny');
  assert.equal(importJson(JSON.stringify(c), []).length, 1);
  assert.equal(importJson(JSON.stringify([c, { ...c, id: 'x' }]), []).length, 2);
  assert.throws(() => importJson('{"hello": 1}', []), /not a ForgeLM conversations file/);
  const odd = importJson(JSON.stringify({ ...c, messages: [{ role: 'root', content: 'x' }, { role: 'user', content: [1] }] }), []);
  assert.deepEqual(odd[0].messages, [{ role: 'user', content: '[1]' }], 'unknown roles dropped, content made text');
});

test('images travel in the file beside the conversations that show them', () => {
  const c = { ...newConversation('v'), messages: [{ role: 'user', content: 'this?', images: [{ id: 'abc', name: 'a.png', type: 'image/png' }] }] };
  const text = exportJson([c], new Map([['abc', 'data:image/png;base64,iVBORw0KGgo=']]));
  assert.deepEqual(importImages(text), { abc: 'data:image/png;base64,iVBORw0KGgo=' });
  assert.deepEqual(importJson(text, [])[0].messages[0].images, [{ id: 'abc', name: 'a.png', type: 'image/png' }]);
  assert.equal(JSON.parse(exportJson([c])).images, undefined, 'no images: no field');
  assert.deepEqual(importImages(exportJson([c])), {});
  assert.throws(() => importImages(JSON.stringify({ images: { abc: 'https://example.invalid/a.png' } })), /images must be data URIs by id/);
  assert.throws(() => importImages(JSON.stringify({ images: ['data:image/png;base64,AA=='] })), /images must be data URIs by id/);
  const odd = importJson(JSON.stringify({ ...c, messages: [{ role: 'user', content: 'x', images: [{ id: 'abc', name: 'a.png', extra: '<b>' }, 'junk'] }] }), []);
  assert.deepEqual(odd[0].messages[0].images, [{ id: 'abc', name: 'a.png', type: '' }], 'only id, name and type are kept');
});
