// node --test: what the composer accepts as an image, and a user turn with images on the wire.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeDataUri, imageFormat, MAX_IMAGE_BYTES, MAX_IMAGES_PER_MESSAGE, refusal, userContent, visionRefusal } from '../src/attachments.js';

// a 1x1 PNG
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==', 'base64');
const WEBP_HEAD = Buffer.from('RIFF\u0000\u0000\u0000\u0000WEBPVP8 ', 'latin1');

test('formats by their first bytes, not by name', () => {
  assert.equal(imageFormat(PNG), 'image/png');
  assert.equal(imageFormat(Buffer.from([0xff, 0xd8, 0xff, 0xe0])), 'image/jpeg');
  assert.equal(imageFormat(Buffer.from('GIF89a', 'latin1')), 'image/gif');
  assert.equal(imageFormat(Buffer.from('BM\u0000\u0000', 'latin1')), 'image/bmp');
  assert.equal(imageFormat(WEBP_HEAD), null);
  assert.equal(imageFormat(Buffer.from('%PDF-1.7', 'latin1')), null);
  assert.equal(imageFormat(PNG.subarray(0, 4)), null, 'a PNG signature cut short');
});

test('huge, empty, unknown and one too many are refused with the reason', () => {
  assert.equal(refusal('a.png', PNG.length, PNG, 0), null);
  assert.equal(refusal('big.png', MAX_IMAGE_BYTES + 1, PNG, 0), 'big.png is 8.0 MB; images up to 8.0 MB are accepted.');
  assert.equal(refusal('big.png', MAX_IMAGE_BYTES, PNG, 0), null, 'the limit itself is accepted');
  assert.match(refusal('huge.png', 50 * 1024 * 1024, PNG, 0), /^huge\.png is 50\.0 MB; images up to 8\.0 MB/);
  assert.equal(refusal('e.png', 0, Buffer.alloc(0), 0), 'e.png is empty.');
  assert.equal(refusal('x.webp', 100, WEBP_HEAD, 0), 'x.webp is not a PNG, JPEG, GIF or BMP image (WebP is not supported).');
  assert.equal(refusal('doc.pdf', 100, Buffer.from('%PDF-1.7', 'latin1'), 0), 'doc.pdf is not a PNG, JPEG, GIF or BMP image.');
  assert.match(refusal('a.png', PNG.length, PNG, MAX_IMAGES_PER_MESSAGE), /at most 8 images/);
});

test('the attach control is on only for a model listing the vision capability', () => {
  assert.equal(visionRefusal({ id: 'v', capabilities: ['chat', 'vision'] }), null);
  assert.equal(visionRefusal({ id: 'tiny', capabilities: ['chat', 'completions'] }),
    'tiny has no vision projector, so it cannot read images (serve it with --mmproj).');
  assert.match(visionRefusal({ id: 'old' }), /^old has no vision projector/);
  assert.equal(visionRefusal(undefined), 'Pick a model first.');
});

test('a user turn: text alone stays a string; with images, image_url parts before the text', () => {
  const uris = new Map([['h1', 'data:image/png;base64,AAA'], ['h2', 'data:image/gif;base64,BBB']]);
  assert.equal(userContent('hi', undefined, uris), 'hi');
  assert.equal(userContent('hi', [], uris), 'hi');
  assert.deepEqual(userContent('What is this?', [{ id: 'h1', name: 'a.png' }, { id: 'h2', name: 'b.gif' }], uris), [
    { type: 'image_url', image_url: { url: 'data:image/png;base64,AAA' } },
    { type: 'image_url', image_url: { url: 'data:image/gif;base64,BBB' } },
    { type: 'text', text: 'What is this?' },
  ]);
  assert.deepEqual(userContent('', [{ id: 'h1' }], uris), [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAA' } }], 'an image alone');
  assert.throws(() => userContent('x', [{ id: 'gone', name: 'old.png' }], uris), /old\.png is no longer stored in this browser/);
});

test('data URIs decode to their bytes; anything else is refused', () => {
  const { type, bytes } = decodeDataUri(`data:image/png;base64,${PNG.toString('base64')}`);
  assert.equal(type, 'image/png');
  assert.deepEqual(Buffer.from(bytes), PNG);
  assert.equal(decodeDataUri(`data:image/jpeg;base64,${PNG.toString('base64')}`).type, 'image/png', 'the bytes decide, not the label');
  assert.throws(() => decodeDataUri('https://example.invalid/a.png'), /not a base64 data URI/);
  assert.throws(() => decodeDataUri(`data:image/png;base64,${Buffer.from('hello').toString('base64')}`), /not a PNG, JPEG, GIF or BMP/);
});
