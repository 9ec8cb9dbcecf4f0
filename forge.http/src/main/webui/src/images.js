// The bytes of the images in conversations live in the browser's IndexedDB, named by their SHA-256:
// localStorage (where the conversations are) holds a few MB, two screenshots as base64, and a full
// localStorage would stop every conversation from being saved. A message keeps only the image's
// id, name and type; the same image attached twice is stored once. Images no conversation names
// any more are deleted when a conversation is.

import { decodeDataUri } from './attachments.js';

const DB_NAME = 'forge.images';
const STORE = 'images';

let opening = null;

function database() {
  opening ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  return opening;
}

async function transaction(mode, work) {
  const db = await database();
  return new Promise((resolve, reject) => {
    const tx = db.transaction(STORE, mode);
    const request = work(tx.objectStore(STORE));
    tx.oncomplete = () => resolve(request?.result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('the image store refused the change'));
  });
}

/** Blobs (and their object URLs) read or stored in this page, by id: a thumbnail shows without waiting. */
const loaded = new Map();

/** The id of an image's bytes: their SHA-256 in hex (random where the page is no secure context). */
export async function imageId(blob) {
  if (!crypto.subtle) {
    return `r-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  }
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', await blob.arrayBuffer()));
  return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Keeps `blob` under `id` (once; storing the same id again changes nothing). */
export async function storeImage(id, blob) {
  remember(id, blob);
  await transaction('readwrite', (store) => store.put(blob, id));
}

function remember(id, blob) {
  if (!loaded.has(id)) {
    loaded.set(id, { blob, url: URL.createObjectURL(blob) });
  }
  return loaded.get(id);
}

async function load(id) {
  if (loaded.has(id)) {
    return loaded.get(id);
  }
  const blob = await transaction('readonly', (store) => store.get(id));
  return blob ? remember(id, blob) : null;
}

/** An object URL for the image to show, or null when it is not stored (any more). */
export async function imageUrl(id) {
  return (await load(id))?.url ?? null;
}

function dataUri(blob) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}

/** The data URIs of the images `ids` names that are stored, by id. */
export async function dataUris(ids) {
  const out = new Map();
  for (const id of new Set(ids)) {
    const entry = await load(id);
    if (entry) {
      out.set(id, await dataUri(entry.blob));
    }
  }
  return out;
}

/** Stores the images of an imported file (data URIs by id; see store.js's importImages). */
export async function storeDataUris(images) {
  for (const [id, uri] of Object.entries(images)) {
    const { type, bytes } = decodeDataUri(uri);
    await storeImage(id, new Blob([bytes], { type }));
  }
}

/** The ids of the images `conversations` show. */
export function imageIds(conversations) {
  return conversations.flatMap((c) => c.messages.flatMap((m) => (m.images ?? []).map((i) => i.id)));
}

/** Deletes every stored image none of `conversations` shows. */
export async function pruneImages(conversations) {
  const keep = new Set(imageIds(conversations));
  const ids = await transaction('readonly', (store) => store.getAllKeys());
  const gone = ids.filter((id) => !keep.has(id));
  if (gone.length) {
    await transaction('readwrite', (store) => {
      gone.forEach((id) => store.delete(id));
      return null;
    });
  }
  for (const id of gone) {
    URL.revokeObjectURL(loaded.get(id)?.url ?? '');
    loaded.delete(id);
  }
}
