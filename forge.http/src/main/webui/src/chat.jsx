// The chat playground: conversations (kept in the browser), model and sampling settings, images
// attached to a message (picked, pasted or dropped; for a model with a vision projector), and a
// streamed answer with its reasoning folded apart, tool calls as such, and the server's timings.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, sseEvents } from './api.js';
import { imageFormat, refusal, userContent, visionRefusal } from './attachments.js';
import { dataUris, imageId, imageIds, imageUrl, pruneImages, storeDataUris, storeImage } from './images.js';
import { markdown } from './markdown.js';
import { exportJson, importImages, importJson, newConversation } from './store.js';

/** The request's sampling fields: blank ones are left to the server's defaults. */
export function samplingFields(params) {
  const out = {};
  for (const name of ['temperature', 'top_p']) {
    if (params[name] !== '' && params[name] != null && Number.isFinite(Number(params[name]))) {
      out[name] = Number(params[name]);
    }
  }
  for (const name of ['max_tokens', 'seed']) {
    if (params[name] !== '' && params[name] != null && Number.isInteger(Number(params[name]))) {
      out[name] = Number(params[name]);
    }
  }
  const stops = String(params.stop ?? '').split('\n').filter((s) => s.length > 0);
  if (stops.length) {
    out.stop = stops;
  }
  return out;
}

/**
 * The conversation as the API's messages: the system prompt first, then each turn's text, images
 * (data URIs by id in `uris`) and tool calls.
 */
export function wireMessages(conversation, uris = new Map()) {
  const out = conversation.system.trim() ? [{ role: 'system', content: conversation.system }] : [];
  for (const m of conversation.messages) {
    if (m.role === 'assistant' && m.tool_calls?.length) {
      out.push({ role: 'assistant', content: m.content ?? '', tool_calls: m.tool_calls.map(({ id, type, function: f }) => ({ id, type, function: f })) });
    } else {
      out.push({ role: m.role, content: m.role === 'user' ? userContent(m.content, m.images, uris) : (m.content ?? '') });
    }
  }
  return out;
}

function formatTimings(t) {
  if (!t) {
    return '';
  }
  const parts = [];
  if (t.ttft_ms != null) parts.push(`TTFT ${Math.round(t.ttft_ms)} ms`);
  if (t.predicted_per_second != null) parts.push(`${t.predicted_per_second.toFixed(1)} tok/s`);
  if (t.predicted_n != null) parts.push(`${t.predicted_n} tokens`);
  if (t.prompt_n != null) parts.push(`prompt ${t.prompt_n}${t.cache_n ? ` + ${t.cache_n} cached` : ''}`);
  return parts.join(' · ');
}

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // no clipboard permission (plain http on another host): a hidden textarea still works
    const area = document.createElement('textarea');
    area.value = text;
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

/** A stored image, as its object URL once read from the browser's image store. */
function StoredImage({ image }) {
  const [url, setUrl] = useState(undefined);
  useEffect(() => {
    let live = true;
    imageUrl(image.id).then((u) => live && setUrl(u), () => live && setUrl(null));
    return () => { live = false; };
  }, [image.id]);
  if (url === null) {
    return <span class="image-missing">{image.name}: no longer stored in this browser</span>;
  }
  return <img src={url} alt={image.name} title={image.name} />;
}

function Message({ message, last, busy, onRegenerate }) {
  const [copied, setCopied] = useState(false);
  const html = useMemo(() => markdown(message.content), [message.content]);
  const assistant = message.role === 'assistant';
  return (
    <article class={`message ${message.role}`} aria-label={assistant ? 'Assistant' : 'You'} data-finish={message.finish ?? ''}>
      <div class="role">{assistant ? (message.model ?? 'assistant') : 'you'}</div>
      {message.reasoning && (
        <details class="reasoning">
          <summary>Reasoning <span class="hint">({message.reasoning.length} characters)</span></summary>
          <div class="reasoning-text">{message.reasoning}</div>
        </details>
      )}
      {message.images?.length > 0 && (
        <ul class="images" aria-label="Images">
          {message.images.map((image) => <li><StoredImage image={image} /></li>)}
        </ul>
      )}
      {assistant
        ? <div class="content markdown" dangerouslySetInnerHTML={{ __html: html }} />
        : (message.content || !message.images?.length) && <div class="content plain">{message.content}</div>}
      {message.tool_calls?.map((call) => (
        <div class="tool-call" role="group" aria-label={`Tool call ${call.function?.name ?? ''}`}>
          <div class="tool-head"><span class="badge">tool call</span> <code>{call.function?.name}</code> {call.id && <span class="hint">{call.id}</span>}</div>
          <pre class="tool-args">{prettyJson(call.function?.arguments ?? '')}</pre>
        </div>
      ))}
      {message.error && <p class="error" role="alert">{message.error}</p>}
      {assistant && (
        <footer class="meta">
          {message.timings && <span class="timings">{formatTimings(message.timings)}</span>}
          {message.finish && <span class="finish">{message.finish === 'stopped' ? 'stopped' : `finish: ${message.finish}`}</span>}
          {!busy && (
            <span class="actions">
              <button type="button" class="small" onClick={async () => { setCopied(await copyText(message.content ?? '')); setTimeout(() => setCopied(false), 1500); }}>
                {copied ? 'Copied' : 'Copy'}
              </button>
              {last && <button type="button" class="small" onClick={onRegenerate}>Regenerate</button>}
            </span>
          )}
        </footer>
      )}
    </article>
  );
}

function prettyJson(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text; // still streaming, or not JSON
  }
}

/** Applies one chunk's delta to the message being streamed. */
export function applyChunk(message, chunk) {
  if (chunk.timings) {
    message.timings = chunk.timings;
  }
  for (const choice of chunk.choices ?? []) {
    if (choice.index !== 0) {
      continue;
    }
    const d = choice.delta ?? {};
    if (d.content) message.content += d.content;
    if (d.reasoning_content) message.reasoning = (message.reasoning ?? '') + d.reasoning_content;
    for (const t of d.tool_calls ?? []) {
      message.tool_calls ??= [];
      const call = (message.tool_calls[t.index ?? 0] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
      if (t.id) call.id = t.id;
      if (t.function?.name) call.function.name += t.function.name;
      if (t.function?.arguments) call.function.arguments += t.function.arguments;
    }
    if (choice.finish_reason) message.finish = choice.finish_reason;
  }
}

function NumberField({ id, label, value, onInput, step, min, max, placeholder }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} type="number" inputMode="decimal" step={step} min={min} max={max} placeholder={placeholder} value={value}
        onInput={(e) => onInput(e.currentTarget.value)} />
    </div>
  );
}

export function Chat({ models, conversations, current, setCurrentId, update }) {
  const [draft, setDraft] = useState('');
  // images attached to the draft: { id, name, type, size, blob, url } each (url: an object URL for its thumbnail)
  const [attached, setAttached] = useState([]);
  const [attachError, setAttachError] = useState('');
  const [dragging, setDragging] = useState(false);
  const imageInput = useRef(null);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState('');
  const [streaming, setStreaming] = useState(null);
  const controller = useRef(null);
  const log = useRef(null);
  const composer = useRef(null);
  const wide = useMemo(() => matchMedia('(min-width: 900px)').matches, []);

  const model = current.model && models.some((m) => m.id === current.model) ? current.model : (models[0]?.id ?? '');
  // why the selected model takes no images (null when it does): the attach control says it
  const noVision = models.length ? visionRefusal(models.find((m) => m.id === model)) : 'Loading the models…';

  const patch = (fields, persist = true) => update((list) => list.map((c) => (c.id === current.id ? { ...c, ...fields, updated: Date.now() } : c)), persist);
  const setParam = (name, value) => patch({ params: { ...current.params, [name]: value } });

  useEffect(() => {
    log.current?.scrollTo({ top: log.current.scrollHeight });
  }, [current.messages.length, streaming?.content, streaming?.reasoning]);

  async function run(messages) {
    const conversation = { ...current, model, messages };
    const answer = { role: 'assistant', content: '', model };
    patch({ messages, model, title: current.messages.length ? current.title : titleOf(messages) });
    setBusy(true);
    setStatus('Generating…');
    setStreaming({ ...answer });
    const abort = new AbortController();
    controller.current = abort;
    let frame = 0;
    try {
      const uris = await dataUris(imageIds([conversation]));
      const response = await api('/v1/chat/completions', {
        method: 'POST',
        raw: true,
        signal: abort.signal,
        body: { model, messages: wireMessages(conversation, uris), stream: true, stream_options: { include_usage: true }, ...samplingFields(current.params) },
      });
      for await (const chunk of sseEvents(response)) {
        if (chunk.error) {
          answer.error = chunk.error.message;
          break;
        }
        applyChunk(answer, chunk);
        if (!frame) {
          frame = requestAnimationFrame(() => {
            frame = 0;
            setStreaming({ ...answer, tool_calls: answer.tool_calls?.map((t) => ({ ...t, function: { ...t.function } })) });
          });
        }
      }
      setStatus('Answer complete.');
    } catch (e) {
      if (abort.signal.aborted) {
        answer.finish = 'stopped';
        setStatus('Stopped.');
      } else {
        answer.error = e.message;
        setStatus(`Failed: ${e.message}`);
      }
    } finally {
      cancelAnimationFrame(frame);
      controller.current = null;
      setStreaming(null);
      setBusy(false);
      patch({ messages: [...messages, answer] });
      composer.current?.focus();
    }
  }

  /** Attaches the image files among `files` that pass the checks; says why for each that does not. */
  async function attach(files) {
    const list = [...files];
    if (!list.length) {
      return;
    }
    if (noVision) {
      setAttachError(noVision);
      return;
    }
    const added = [...attached];
    const refused = [];
    for (const file of list) {
      const head = new Uint8Array(await file.slice(0, 16).arrayBuffer());
      const why = refusal(file.name || 'the image', file.size, head, added.length);
      if (why) {
        refused.push(why);
        continue;
      }
      const type = imageFormat(head);
      const blob = new Blob([file], { type });
      const id = await imageId(blob);
      if (!added.some((a) => a.id === id)) {
        added.push({ id, name: file.name || `image.${type.slice(6)}`, type, size: file.size, blob, url: URL.createObjectURL(blob) });
      }
    }
    setAttached(added);
    setAttachError(refused.join(' '));
  }

  const detach = (id) => {
    setAttached((list) => list.filter((a) => {
      if (a.id === id) URL.revokeObjectURL(a.url);
      return a.id !== id;
    }));
    composer.current?.focus();
  };

  const send = async (e) => {
    e?.preventDefault();
    const text = draft.trim();
    if ((!text && !attached.length) || busy || !model) {
      return;
    }
    const images = attached;
    const message = { role: 'user', content: text };
    if (images.length) {
      try {
        for (const image of images) {
          await storeImage(image.id, image.blob);
        }
      } catch (err) {
        setAttachError(`The images could not be stored in this browser: ${err.message}`);
        return;
      }
      message.images = images.map(({ id, name, type }) => ({ id, name, type }));
      images.forEach((image) => URL.revokeObjectURL(image.url));
    }
    setDraft('');
    setAttached([]);
    setAttachError('');
    run([...current.messages, message]);
  };

  const regenerate = () => {
    const messages = [...current.messages];
    while (messages.length && messages[messages.length - 1].role === 'assistant') {
      messages.pop();
    }
    if (messages.length) {
      run(messages);
    }
  };

  const stop = () => controller.current?.abort();

  const fileInput = useRef(null);
  const doExport = async () => {
    const blob = new Blob([exportJson(conversations, await dataUris(imageIds(conversations)))], { type: 'application/json' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `forgelm-conversations-${new Date().toISOString().slice(0, 10)}.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  };
  const doImport = async (e) => {
    const file = e.currentTarget.files?.[0];
    e.currentTarget.value = '';
    if (!file) return;
    try {
      const text = await file.text();
      const imported = importJson(text, conversations);
      await storeDataUris(importImages(text));
      update((list) => [...imported, ...list]);
      setCurrentId(imported[0]?.id ?? current.id);
      setStatus(`Imported ${imported.length} conversation${imported.length === 1 ? '' : 's'}.`);
    } catch (err) {
      setStatus(`Import failed: ${err.message}`);
    }
  };
  const add = () => {
    const c = newConversation(model);
    c.system = current.system;
    c.params = { ...current.params };
    update((list) => [c, ...list]);
    setCurrentId(c.id);
  };
  const remove = () => {
    update((list) => {
      const rest = list.filter((c) => c.id !== current.id);
      const next = rest.length ? rest : [newConversation(model)];
      setCurrentId(next[0].id);
      pruneImages(next).catch(() => {}); // a leftover image costs space, nothing else
      return next;
    });
  };

  const shown = streaming ? [...current.messages, streaming] : current.messages;
  const lastAssistant = shown.length - 1;

  return (
    <div class="chat">
      <details class="panel conversations" open={wide}>
        <summary>Conversations</summary>
        <div class="row">
          <button type="button" onClick={add} disabled={busy}>New chat</button>
          <button type="button" onClick={remove} disabled={busy}>Delete</button>
        </div>
        <ul class="conversation-list" aria-label="Saved conversations">
          {conversations.map((c) => (
            <li>
              <button type="button" class="conversation" aria-current={c.id === current.id ? 'true' : undefined} disabled={busy}
                onClick={() => setCurrentId(c.id)}>{c.title || 'New chat'}</button>
            </li>
          ))}
        </ul>
        <div class="row">
          <button type="button" onClick={doExport}>Export JSON</button>
          <button type="button" onClick={() => fileInput.current.click()}>Import JSON</button>
          <input ref={fileInput} type="file" accept="application/json,.json" class="visually-hidden" aria-label="Import conversations (JSON file)" onChange={doImport} tabIndex={-1} />
        </div>
      </details>

      <section class={`thread${dragging ? ' dragging' : ''}`} aria-label="Conversation"
        onDragOver={(e) => {
          if ([...(e.dataTransfer?.types ?? [])].includes('Files')) {
            e.preventDefault(); // else the browser opens the dropped file in place of the page
            e.dataTransfer.dropEffect = noVision ? 'none' : 'copy';
            setDragging(true);
          }
        }}
        onDragLeave={(e) => { if (!e.currentTarget.contains(e.relatedTarget)) setDragging(false); }}
        onDrop={(e) => {
          if (e.dataTransfer?.files?.length) {
            e.preventDefault();
            setDragging(false);
            attach(e.dataTransfer.files);
          }
        }}>
        <div class="messages" ref={log} role="log" aria-live="polite" aria-busy={busy ? 'true' : 'false'}>
          {shown.length === 0 && <p class="empty">Pick a model, type a message, press Enter.</p>}
          {shown.map((m, i) => (
            <Message message={m} last={i === lastAssistant && m.role === 'assistant'} busy={busy} onRegenerate={regenerate} />
          ))}
        </div>
        {(attached.length > 0 || attachError) && (
          <div class="attachments">
            {attached.length > 0 && (
              <ul class="thumbnails" aria-label="Attached images">
                {attached.map((a) => (
                  <li class="thumbnail">
                    <img src={a.url} alt={a.name} title={`${a.name} (${Math.ceil(a.size / 1024)} KB)`} />
                    <button type="button" class="remove" aria-label={`Remove ${a.name}`} title={`Remove ${a.name}`} onClick={() => detach(a.id)}>×</button>
                  </li>
                ))}
              </ul>
            )}
            {attachError && <p class="error attach-error" role="alert">{attachError}</p>}
          </div>
        )}
        <form class="composer" onSubmit={send}>
          <span class="attach" title={noVision ?? 'Attach images (or paste them, or drop them here)'}>
            <button type="button" class="attach-button" aria-label="Attach image" disabled={busy || Boolean(noVision)}
              aria-describedby={noVision ? 'attach-why' : undefined} onClick={() => imageInput.current.click()}>
              <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true"><path fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" d="M21 12.5l-8.2 8.2a5 5 0 01-7.1-7.1l8.5-8.5a3.3 3.3 0 014.7 4.7l-8.5 8.5a1.7 1.7 0 01-2.4-2.4l7.8-7.8" /></svg>
            </button>
          </span>
          {noVision && <span id="attach-why" class="visually-hidden">{noVision}</span>}
          <input ref={imageInput} type="file" accept="image/png,image/jpeg,image/gif,image/bmp" multiple class="visually-hidden"
            aria-label="Attach image files" tabIndex={-1} onChange={(e) => { const files = [...e.currentTarget.files]; e.currentTarget.value = ''; attach(files); }} />
          <label for="composer-input" class="visually-hidden">Message</label>
          <textarea id="composer-input" ref={composer} rows={2} placeholder="Message (Enter sends, Shift+Enter for a new line)" value={draft}
            onInput={(e) => setDraft(e.currentTarget.value)}
            onPaste={(e) => {
              const images = [...(e.clipboardData?.files ?? [])].filter((f) => f.type.startsWith('image/'));
              if (images.length) {
                e.preventDefault(); // the image, not its file name as text
                attach(images);
              }
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) send(e);
              if (e.key === 'Escape' && busy) stop();
            }} />
          {busy
            ? <button type="button" class="danger" onClick={stop}>Stop</button>
            : <button type="submit" class="primary" disabled={!model || (!draft.trim() && !attached.length)}>Send</button>}
        </form>
        <p class="status" role="status">{status}</p>
      </section>

      <details class="panel settings" open={wide}>
        <summary>Settings</summary>
        <div class="field">
          <label for="model-select">Model</label>
          <select id="model-select" value={model} onChange={(e) => patch({ model: e.currentTarget.value })} disabled={busy}>
            {models.map((m) => (
              <option value={m.id}>{m.alias_of ? `${m.id} (alias of ${m.alias_of})` : m.id}</option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="system-prompt">System prompt</label>
          <textarea id="system-prompt" rows={4} value={current.system} onInput={(e) => patch({ system: e.currentTarget.value })} />
        </div>
        <div class="grid2">
          <NumberField id="p-temperature" label="Temperature" step="0.05" min="0" max="2" placeholder="default" value={current.params.temperature} onInput={(v) => setParam('temperature', v)} />
          <NumberField id="p-top-p" label="Top p" step="0.01" min="0" max="1" placeholder="default" value={current.params.top_p} onInput={(v) => setParam('top_p', v)} />
          <NumberField id="p-max-tokens" label="Max tokens" step="1" min="1" placeholder="default" value={current.params.max_tokens} onInput={(v) => setParam('max_tokens', v)} />
          <NumberField id="p-seed" label="Seed" step="1" placeholder="random" value={current.params.seed} onInput={(v) => setParam('seed', v)} />
        </div>
        <div class="field">
          <label for="p-stop">Stop sequences <span class="hint">(one per line)</span></label>
          <textarea id="p-stop" rows={2} value={current.params.stop} onInput={(e) => setParam('stop', e.currentTarget.value)} />
        </div>
      </details>
    </div>
  );
}

function titleOf(messages) {
  const user = messages.find((m) => m.role === 'user');
  const first = user?.content || (user?.images?.length ? user.images[0].name : 'New chat');
  return first.length > 40 ? `${first.slice(0, 40)}…` : first;
}
