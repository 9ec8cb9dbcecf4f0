// ForgeLM's web UI: a chat playground, the template preview and a live dashboard, one page that
// routes by the URL's fragment (#/chat, #/template, #/dashboard).
import { render } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, apiKey, setKeyPrompt } from './api.js';
import { Chat } from './chat.jsx';
import { TemplatePreview } from './template.jsx';
import { Dashboard } from './dashboard.jsx';
import { loadConversations, newConversation, saveConversations } from './store.js';
import './style.css';

const VIEWS = [
  ['chat', 'Chat'],
  ['template', 'Template'],
  ['dashboard', 'Dashboard'],
];

function currentView() {
  const name = location.hash.replace(/^#\/?/, '');
  return VIEWS.some(([v]) => v === name) ? name : 'chat';
}

/** The key prompt: a modal dialog (focus stays inside it, Escape does not dismiss it without a key). */
function KeyDialog({ request, onDone }) {
  const dialog = useRef(null);
  const input = useRef(null);
  useEffect(() => {
    if (request && !dialog.current.open) {
      dialog.current.showModal();
      input.current.value = '';
      input.current.focus();
    }
  }, [request]);
  const submit = (e) => {
    e.preventDefault();
    const key = input.current.value.trim();
    if (!key) {
      return;
    }
    apiKey.set(key);
    dialog.current.close();
    onDone();
  };
  return (
    <dialog ref={dialog} class="key-dialog" aria-labelledby="key-title" onCancel={(e) => e.preventDefault()}>
      <form onSubmit={submit}>
        <h2 id="key-title">API key</h2>
        <p id="key-reason">{request?.reason}</p>
        <label for="api-key-input">The key this server was started with (--api-key)</label>
        <input id="api-key-input" ref={input} type="password" autocomplete="off" spellcheck={false} required aria-describedby="key-reason key-note" />
        <p id="key-note" class="hint">Kept in this tab's session storage only; closing the tab forgets it.</p>
        <button type="submit" class="primary">Use key</button>
      </form>
    </dialog>
  );
}

function App() {
  const [view, setView] = useState(currentView());
  const [keyRequest, setKeyRequest] = useState(null);
  const [models, setModels] = useState([]);
  const [modelsError, setModelsError] = useState('');
  const [conversations, setConversations] = useState(() => {
    const list = loadConversations();
    return list.length ? list : [newConversation()];
  });
  const [currentId, setCurrentId] = useState(() => conversations[0].id);
  const [hasKey, setHasKey] = useState(Boolean(apiKey.get()));

  useEffect(() => {
    const onHash = () => setView(currentView());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  useEffect(() => {
    document.title = `ForgeLM · ${VIEWS.find(([v]) => v === view)[1]}`;
  }, [view]);

  const resolvers = useRef([]);
  useEffect(() => {
    setKeyPrompt((reason) => new Promise((resolve) => {
      resolvers.current.push(resolve);
      setKeyRequest({ reason, at: Date.now() });
    }));
  }, []);
  const keyGiven = () => {
    setHasKey(true);
    setKeyRequest(null);
    resolvers.current.splice(0).forEach((resolve) => resolve());
  };

  const refreshModels = useCallback(async () => {
    try {
      const list = await api('/v1/models');
      // An alias equal to the model's id is listed twice: one entry per name is enough for a picker.
      const seen = new Set();
      setModels((list.data ?? []).filter((m) => !seen.has(m.id) && seen.add(m.id)));
      setModelsError('');
    } catch (e) {
      setModelsError(e.message);
    }
  }, []);
  useEffect(() => {
    refreshModels();
  }, [refreshModels]);

  const updateConversations = useCallback((fn, persist = true) => {
    setConversations((list) => {
      const next = fn(list);
      if (persist) {
        saveConversations(next);
      }
      return next;
    });
  }, []);

  const current = conversations.find((c) => c.id === currentId) ?? conversations[0];

  return (
    <>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <span class="brand" aria-label="ForgeLM">Forge<b>LM</b></span>
        <nav aria-label="Views">
          {VIEWS.map(([name, label]) => (
            <a href={`#/${name}`} aria-current={view === name ? 'page' : undefined}>{label}</a>
          ))}
        </nav>
        {hasKey && (
          <button type="button" class="link" onClick={() => { apiKey.clear(); setHasKey(false); }}>Forget key</button>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        {modelsError && <p class="error" role="alert">Models: {modelsError}</p>}
        {view === 'chat' && (
          <Chat models={models} conversations={conversations} current={current} setCurrentId={setCurrentId}
            update={updateConversations} refreshModels={refreshModels} />
        )}
        {view === 'template' && <TemplatePreview models={models} conversation={current} />}
        {view === 'dashboard' && <Dashboard />}
      </main>
      <KeyDialog request={keyRequest} onDone={keyGiven} />
    </>
  );
}

render(<App />, document.getElementById('app'));
