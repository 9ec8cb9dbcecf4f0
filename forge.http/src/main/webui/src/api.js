// Every call to the server goes through here: same origin, the API key (kept in sessionStorage,
// so it is gone with the tab) as a Bearer header, and one prompt for the key when the server says 401.

const KEY = 'forge.apiKey';

export const apiKey = {
  get: () => sessionStorage.getItem(KEY) ?? '',
  set: (key) => sessionStorage.setItem(KEY, key),
  clear: () => sessionStorage.removeItem(KEY),
};

/** An error answer, OpenAI-shaped ({"error":{"message",...}}) or not. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

let askForKey = null;
let asking = null;

/**
 * The UI's key prompt: `ask(reason)` resolves once the user gave a key. Calls that get 401 while
 * it is open all wait for that one prompt.
 */
export function setKeyPrompt(ask) {
  askForKey = ask;
}

function promptForKey(reason) {
  if (!asking) {
    asking = askForKey(reason).finally(() => {
      asking = null;
    });
  }
  return asking;
}

/**
 * Calls the API; resolves to the parsed JSON (or the text, for /metrics), or to the Response
 * itself with `raw` (streams). Throws ApiError for an error status.
 */
export async function api(path, { method = 'GET', body, signal, raw = false, quiet = false } = {}) {
  for (;;) {
    const headers = {};
    const key = apiKey.get();
    if (key) {
      headers.Authorization = `Bearer ${key}`;
    }
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
    }
    const response = await fetch(path, { method, headers, signal, body: body === undefined ? undefined : JSON.stringify(body) });
    if (response.status === 401 && askForKey && !quiet) {
      await promptForKey(key ? 'The server did not accept that key.' : 'This server needs an API key.');
      continue;
    }
    if (raw && response.ok) {
      return response;
    }
    const text = await response.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      // /metrics is text; an error page from a proxy may be HTML
    }
    if (!response.ok) {
      throw new ApiError(response.status, json?.error?.message ?? (text || response.statusText));
    }
    return json ?? text;
  }
}

/** The events of a server-sent-event stream as parsed JSON, until `[DONE]`. */
export async function* sseEvents(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) {
      return;
    }
    buffer += value.replaceAll('\r\n', '\n');
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
      if (!data) {
        continue; // a keep-alive comment
      }
      if (data === '[DONE]') {
        reader.cancel().catch(() => {});
        return;
      }
      yield JSON.parse(data);
    }
  }
}
