// Images attached to a chat message: what the composer accepts (checked before anything is read
// into the page or sent), and how a user turn with images goes on the wire (OpenAI `image_url`
// parts with data URIs, the one form every door of the server reads).

/**
 * The largest image file accepted. The whole conversation is sent with every turn, as base64 (a
 * third larger), under the server's default request limit of 16 MiB (`--max-body`): a bigger file
 * would make every later turn of its conversation fail.
 */
export const MAX_IMAGE_BYTES = 8 * 1024 * 1024;

/** The most images one message may carry (the server reads at most 16 in one request). */
export const MAX_IMAGES_PER_MESSAGE = 8;

/** The formats the server decodes, by their first bytes (a file's name or MIME type can lie). */
const FORMATS = [
  ['image/png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['image/jpeg', [0xff, 0xd8, 0xff]],
  ['image/gif', [0x47, 0x49, 0x46, 0x38]],
  ['image/bmp', [0x42, 0x4d]],
];

/** The MIME type of an image's bytes (its first few suffice), or null for any other format. */
export function imageFormat(bytes) {
  for (const [type, magic] of FORMATS) {
    if (bytes.length >= magic.length && magic.every((b, i) => bytes[i] === b)) {
      return type;
    }
  }
  return null;
}

function megabytes(n) {
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * Why a file cannot be attached, or null when it can: `head` is its first bytes, `already` how
 * many images the message holds.
 */
export function refusal(name, size, head, already) {
  if (already >= MAX_IMAGES_PER_MESSAGE) {
    return `${name}: a message takes at most ${MAX_IMAGES_PER_MESSAGE} images.`;
  }
  if (size > MAX_IMAGE_BYTES) {
    return `${name} is ${megabytes(size)}; images up to ${megabytes(MAX_IMAGE_BYTES)} are accepted.`;
  }
  if (size === 0) {
    return `${name} is empty.`;
  }
  if (!imageFormat(head)) {
    const webp = head.length >= 12 && String.fromCharCode(...head.slice(8, 12)) === 'WEBP';
    return `${name} is not a PNG, JPEG, GIF or BMP image${webp ? ' (WebP is not supported)' : ''}.`;
  }
  return null;
}

/** Why the attach control is off for a model (an entry of /v1/models), or null when it takes images. */
export function visionRefusal(model) {
  if (!model) {
    return 'Pick a model first.';
  }
  if ((model.capabilities ?? []).includes('vision')) {
    return null;
  }
  return `${model.id} has no vision projector, so it cannot read images (serve it with --mmproj).`;
}

/**
 * A user turn's content on the wire: its text alone as a string; with images, a list of parts,
 * the images (as data URIs, looked up by id in `dataUris`) before the text, as a user shows a
 * picture and then asks about it.
 */
export function userContent(text, images, dataUris) {
  if (!images?.length) {
    return text ?? '';
  }
  const parts = images.map((image) => {
    const url = dataUris.get(image.id);
    if (!url) {
      throw new Error(`the image ${image.name ?? image.id} is no longer stored in this browser; start a new chat to send it again`);
    }
    return { type: 'image_url', image_url: { url } };
  });
  if (text) {
    parts.push({ type: 'text', text });
  }
  return parts;
}

/**
 * The MIME type and bytes of a base64 image data URI; throws naming what is wrong (an imported
 * file is not trusted more than a picked one).
 */
export function decodeDataUri(uri) {
  const match = /^data:([^;,]+);base64,([A-Za-z0-9+/=\s]*)$/.exec(uri ?? '');
  if (!match) {
    throw new Error('an image is not a base64 data URI');
  }
  const binary = atob(match[2].replace(/\s+/g, ''));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  const type = imageFormat(bytes);
  if (!type) {
    throw new Error('an image is not a PNG, JPEG, GIF or BMP image');
  }
  return { type, bytes };
}
