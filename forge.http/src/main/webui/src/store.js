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

export function exportJson(list) {
  return JSON.stringify({ format: FORMAT, version: 1, exported: new Date().toISOString(), conversations: list }, null, 2);
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
      .map((m) => ({ ...m, content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '') }));
    const conversation = { ...newConversation(c.model ?? ''), ...c, messages, params: { ...DEFAULT_PARAMS, ...(c.params ?? {}) } };
    if (ids.has(conversation.id)) {
      conversation.id = crypto.randomUUID();
    }
    ids.add(conversation.id);
    out.push(conversation);
  }
  return out;
}
