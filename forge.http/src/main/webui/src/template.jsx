// The template preview: the prompt the current conversation renders to (POST /apply-template),
// and which template of which plugin rendered it.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { wireMessages } from './chat.jsx';
import { dataUris, imageIds } from './images.js';

export function TemplatePreview({ models, conversation }) {
  const [model, setModel] = useState(conversation.model || models[0]?.id || '');
  const [generationPrompt, setGenerationPrompt] = useState(true);
  const [extra, setExtra] = useState('Hello!');
  const [result, setResult] = useState(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!model && models[0]) setModel(models[0].id);
  }, [models]);

  async function preview(e) {
    e?.preventDefault();
    if (!model) return;
    setBusy(true);
    try {
      const messages = wireMessages(conversation, await dataUris(imageIds([conversation])));
      if (extra.trim()) messages.push({ role: 'user', content: extra });
      const rendered = await api('/apply-template', { method: 'POST', body: { model, messages, add_generation_prompt: generationPrompt } });
      let tokens = null;
      try {
        tokens = (await api('/tokenize', { method: 'POST', body: { model, content: rendered.prompt, parse_special: true } })).tokens?.length ?? null;
      } catch {
        // the count is a nicety
      }
      setResult({ ...rendered, tokens });
      setError('');
    } catch (err) {
      setError(err.message);
      setResult(null);
    } finally {
      setBusy(false);
    }
  }

  useEffect(() => {
    preview();
  }, [model]);

  return (
    <section class="template" aria-labelledby="template-title">
      <h1 id="template-title">Template preview</h1>
      <p class="hint">The exact prompt the model sees for the current conversation ({conversation.messages.length} messages{conversation.system.trim() ? ' and its system prompt' : ''}), rendered by the server without generating.</p>
      <form class="template-form" onSubmit={preview}>
        <div class="field">
          <label for="template-model">Model</label>
          <select id="template-model" value={model} onChange={(e) => setModel(e.currentTarget.value)}>
            {models.map((m) => <option value={m.id}>{m.id}</option>)}
          </select>
        </div>
        <div class="field grow">
          <label for="template-extra">Next user message</label>
          <input id="template-extra" value={extra} onInput={(e) => setExtra(e.currentTarget.value)} />
        </div>
        <div class="field check">
          <input id="template-agp" type="checkbox" checked={generationPrompt} onChange={(e) => setGenerationPrompt(e.currentTarget.checked)} />
          <label for="template-agp">Add generation prompt</label>
        </div>
        <button type="submit" class="primary" disabled={busy || !model}>Render</button>
      </form>
      {error && <p class="error" role="alert">{error}</p>}
      {result && (
        <>
          <dl class="facts">
            <div><dt>Template</dt><dd class="template-name">{result.template}</dd></div>
            {result.family && <div><dt>Family</dt><dd>{result.family}</dd></div>}
            <div><dt>Plugin</dt><dd class="template-plugin">{result.plugin ?? 'unknown'}</dd></div>
            {result.tokens != null && <div><dt>Tokens</dt><dd>{result.tokens}</dd></div>}
          </dl>
          <pre class="prompt" aria-label="Rendered prompt" tabIndex={0}>{result.prompt}</pre>
        </>
      )}
    </section>
  );
}
