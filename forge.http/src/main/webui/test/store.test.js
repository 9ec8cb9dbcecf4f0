// node --test: conversations' export and import, without a browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportJson, FORMAT, importJson, newConversation } from '../src/store.js';

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
