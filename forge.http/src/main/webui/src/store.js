// Conversations live in the browser (localStorage), never on the server; export and import move
// them as JSON between browsers.

const KEY = 'forge.conversations';
export const FORMAT = 'forgelm-conversations';

export const DEFAULT_PARAMS = { temperature: '', top_p: '', max_tokens: '', seed: '', stop: '' };

export function newConversation(model = '') {
  return { id: crypto.randomUUID(), title: 'New chat', model, system: '', params: { ...DEFAULT_PARAMS }, messages: [], updated: Date.now() };
}

export function loadConversations() {
  try {
    const list = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    return Array.isArray(list) ? list.filter(valid) : [];
  } catch {
    return [];
  }
}

export function saveConversations(list) {
  try {
    localStorage.setItem(KEY, JSON.stringify(list));
    return true;
  } catch {
    return false; // full, or storage disabled: the conversations live on in the page
  }
}

function valid(c) {
  return c && typeof c.id === 'string' && Array.isArray(c.messages);
}

/**
 * The conversations as a file; `images` are the data URIs of their images by id (the browser keeps
 * the bytes apart from the conversations, images.js), so the file holds everything it shows.
 */
export function exportJson(list, images = new Map()) {
  const file = { format: FORMAT, version: 1, exported: new Date().toISOString(), conversations: list };
  if (images.size) {
    file.images = Object.fromEntries(images);
  }
  return JSON.stringify(file, null, 2);
}

/**
 * The images of an exported file, data URIs by id; every one a base64 PNG, JPEG, GIF or BMP
 * (decodeDataUri checks the bytes when they are stored).
 */
export function importImages(text) {
  const images = JSON.parse(text)?.images;
  if (images == null) {
    return {};
  }
  if (typeof images !== 'object' || Array.isArray(images)
    || !Object.entries(images).every(([id, uri]) => /^[\w-]{1,128}$/.test(id) && typeof uri === 'string' && uri.startsWith('data:image/'))) {
    throw new Error('not a ForgeLM conversations file: its images must be data URIs by id');
  }
  return images;
}

/** A message's images as kept: id, name and type each, nothing else. */
function messageImages(images) {
  if (!Array.isArray(images)) {
    return undefined;
  }
  const kept = images.filter((i) => i && typeof i.id === 'string')
    .map((i) => ({ id: i.id, name: String(i.name ?? 'image'), type: String(i.type ?? '') }));
  return kept.length ? kept : undefined;
}

/**
 * The conversations of an exported file (or of one conversation, or a list of them), each with
 * the fields a conversation needs; an id already in `existing` gets a new one.
 */
export function importJson(text, existing) {
  const data = JSON.parse(text);
  const list = Array.isArray(data) ? data : Array.isArray(data?.conversations) ? data.conversations : [data];
  const ids = new Set(existing.map((c) => c.id));
  const out = [];
  for (const c of list) {
    if (!valid(c)) {
      throw new Error('not a ForgeLM conversations file: a conversation needs an id and messages');
    }
    const messages = c.messages
      .filter((m) => m && ['user', 'assistant', 'system', 'tool'].includes(m.role))
      .map((m) => {
        const out = { ...m, content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '') };
        const images = messageImages(m.images);
        if (images) {
          out.images = images;
        } else {
          delete out.images;
        }
        return out;
      });
    const conversation = { ...newConversation(c.model ?? ''), ...c, messages, params: { ...DEFAULT_PARAMS, ...(c.params ?? {}) } };
    if (ids.has(conversation.id)) {
      conversation.id = crypto.randomUUID();
    }
    ids.add(conversation.id);
    out.push(conversation);
  }
  return out;
}
