// The dashboard: models, slots, queue and the speed figures of /metrics over time, polled once a
// second while it is shown (no reload). Models come from llama-server's router route GET /models
// when the server has it, else from /v1/models and /props.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api.js';
import { buckets, parseMetrics, quantileBetween, total } from './metrics.js';

const POLL_MS = 1000;
const POINTS = 120;

let routerAbsentUntil = 0;

/** Models as the dashboard shows them: id, aliases, state, template and its plugin, context, backend. */
async function loadModels(props) {
  const v1 = (await api('/v1/models')).data ?? [];
  if (!props.has('/v1/templates')) {
    props.set('/v1/templates', api('/v1/templates').then((t) => new Map((t.data ?? []).map((x) => [x.name, x.module]))).catch(() => new Map()));
  }
  const plugins = await props.get('/v1/templates');
  const own = [...new Map(v1.filter((m) => !m.alias_of).map((m) => [m.id, m])).values()];
  let router = null;
  if (Date.now() >= routerAbsentUntil) {
    try {
      router = (await api('/models', { quiet: true })).data ?? null;
    } catch {
      // A server without the router route: /v1/models has it all but the backend. Asked again
      // now and then (not every second: each miss is a 404 in the browser's console).
      routerAbsentUntil = Date.now() + 30_000;
    }
  }
  const byId = new Map(own.map((m) => [m.id, m]));
  const ids = router ? router.map((m) => m.id) : own.map((m) => m.id);
  return Promise.all(ids.map(async (id) => {
    const r = router?.find((m) => m.id === id) ?? {};
    const m = byId.get(id) ?? {};
    if (!props.has(id)) {
      props.set(id, api(`/props?model=${encodeURIComponent(id)}`).catch(() => ({})));
    }
    const p = await props.get(id);
    const state = r.status?.value ?? (m.loaded ? 'loaded' : 'unloaded');
    return {
      id,
      aliases: (r.aliases ?? m.aliases ?? []).filter((a) => a !== id),
      state,
      template: m.template?.name ?? p.chat_template ?? '',
      plugin: plugins.get(m.template?.name ?? p.chat_template) ?? '',
      context: m.slot_context ?? p.runtime?.n_ctx_slot ?? m.context_length ?? null,
      trained: m.context_length ?? null,
      backend: /backend (.+)$/.exec(p.build_info ?? '')?.[1] ?? '',
    };
  }));
}

function fmt(v, digits = 0) {
  return v == null || Number.isNaN(v) ? '–' : v.toFixed(digits);
}

/** A line chart of one or two series (SVG), with its latest values in text. */
function Chart({ title, unit, series, digits = 0 }) {
  const width = 320;
  const height = 90;
  const values = series.flatMap((s) => s.points).filter((v) => v != null);
  const max = Math.max(1e-9, ...values) * 1.1;
  // The newest point at the right edge: a chart fills from the right as the seconds pass.
  const xOf = (points, i) => ((POINTS - points.length + i) / (POINTS - 1)) * width;
  const line = (points) => {
    let d = '';
    points.forEach((v, i) => {
      if (v == null) return;
      const x = xOf(points, i);
      const y = height - (v / max) * height;
      d += `${d && points[i - 1] != null ? 'L' : 'M'}${x.toFixed(1)},${y.toFixed(1)}`;
    });
    return d;
  };
  const latest = series.map((s) => `${s.name} ${fmt([...s.points].reverse().find((v) => v != null), digits)} ${unit}`).join(', ');
  return (
    <figure class="chart">
      <figcaption>
        <span>{title}</span>
        <span class="latest" data-chart={title}>{latest}</span>
      </figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" role="img" aria-label={`${title}: ${latest}; the last ${POINTS} seconds`}>
        <line x1="0" y1={height - 0.5} x2={width} y2={height - 0.5} class="axis" />
        {series.map((s, i) => <path d={line(s.points)} class={`series s${i}`} fill="none" vector-effect="non-scaling-stroke" />)}
        {series.map((s, i) => s.points.map((v, j) => (v != null && s.points[j - 1] == null && s.points[j + 1] == null
          ? <circle cx={xOf(s.points, j)} cy={height - (v / max) * height} r="2.5" class={`dot s${i}`} /> : null)))}
      </svg>
      <div class="legend">
        {series.map((s, i) => <span class={`key s${i}`}>{s.name}</span>)}
        <span class="hint">max {fmt(max / 1.1, digits)} {unit}</span>
      </div>
    </figure>
  );
}

export function Dashboard() {
  const [models, setModels] = useState([]);
  const [slots, setSlots] = useState([]);
  const [gauges, setGauges] = useState({ queue: 0, busy: 0, total: 0, requests: 0 });
  const [history, setHistory] = useState({ tokps: [], ttft50: [], ttft95: [], speed50: [], speed95: [] });
  const [error, setError] = useState('');
  const [updated, setUpdated] = useState(null);
  const previous = useRef(null);
  const props = useRef(new Map());

  useEffect(() => {
    let timer = 0;
    let alive = true;
    const push = (h, name, v) => [...h[name], v].slice(-POINTS);
    async function poll() {
      try {
        const [m, s, text] = await Promise.all([loadModels(props.current), api('/slots'), api('/metrics')]);
        if (!alive) return;
        const samples = parseMetrics(String(text));
        const now = performance.now();
        const scrape = {
          at: now,
          // Finished generations' tokens plus those of the ones running: live, not only at each end.
          tokens: total(samples, 'forge_completion_tokens_total') + (Array.isArray(s) ? s.reduce((a, x) => a + (x.generated_tokens ?? 0), 0) : 0),
          ttft: buckets(samples, 'forge_time_to_first_token_seconds'),
          speed: buckets(samples, 'forge_decode_tokens_per_second'),
        };
        const before = previous.current;
        if (before) {
          const seconds = (now - before.at) / 1000;
          const ttft50 = quantileBetween(before.ttft, scrape.ttft, 0.5);
          const ttft95 = quantileBetween(before.ttft, scrape.ttft, 0.95);
          setHistory((h) => ({
            tokps: push(h, 'tokps', seconds > 0 ? Math.max(0, scrape.tokens - before.tokens) / seconds : 0),
            ttft50: push(h, 'ttft50', ttft50 == null ? null : ttft50 * 1000),
            ttft95: push(h, 'ttft95', ttft95 == null ? null : ttft95 * 1000),
            speed50: push(h, 'speed50', quantileBetween(before.speed, scrape.speed, 0.5)),
            speed95: push(h, 'speed95', quantileBetween(before.speed, scrape.speed, 0.95)),
          }));
        }
        previous.current = scrape;
        setModels(m);
        setSlots(Array.isArray(s) ? s : []);
        setGauges({
          queue: total(samples, 'forge_queue_depth'),
          busy: total(samples, 'forge_slots_busy'),
          total: total(samples, 'forge_slots_total'),
          requests: total(samples, 'forge_http_requests_total'),
        });
        setUpdated(new Date());
        setError('');
      } catch (e) {
        if (alive) setError(e.message);
      }
      if (alive) timer = setTimeout(poll, POLL_MS);
    }
    poll();
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, []);

  return (
    <section class="dashboard" aria-labelledby="dashboard-title">
      <h1 id="dashboard-title">Dashboard</h1>
      <p class="hint" aria-live="off">Live, every second{updated && <> · updated <time class="updated">{updated.toLocaleTimeString()}</time></>}</p>
      {error && <p class="error" role="alert">{error}</p>}
      <div class="cards">
        <div class="card"><span class="label">Queue</span><span class="value" id="gauge-queue">{gauges.queue}</span></div>
        <div class="card"><span class="label">Busy slots</span><span class="value" id="gauge-busy">{gauges.busy} / {gauges.total}</span></div>
        <div class="card"><span class="label">HTTP requests</span><span class="value">{gauges.requests}</span></div>
      </div>
      <div class="charts">
        <Chart title="Throughput" unit="tok/s" digits={1} series={[{ name: 'generated', points: history.tokps }]} />
        <Chart title="Time to first token" unit="ms" series={[{ name: 'p50', points: history.ttft50 }, { name: 'p95', points: history.ttft95 }]} />
        <Chart title="Decode speed" unit="tok/s" series={[{ name: 'p50', points: history.speed50 }, { name: 'p95', points: history.speed95 }]} />
      </div>
      <h2>Models</h2>
      <div class="table-wrap" tabIndex={0} role="region" aria-label="Models">
        <table class="models">
          <thead><tr><th scope="col">Model</th><th scope="col">State</th><th scope="col">Template</th><th scope="col">Context / slot</th><th scope="col">Backend</th></tr></thead>
          <tbody>
            {models.map((m) => (
              <tr data-model={m.id}>
                <th scope="row">{m.id}{m.aliases.length > 0 && <span class="hint"> ({m.aliases.join(', ')})</span>}</th>
                <td><span class={`state ${m.state}`}>{m.state}</span></td>
                <td>{m.template}{m.plugin && <span class="hint"> · {m.plugin}</span>}</td>
                <td>{m.context ?? '–'}{m.trained && <span class="hint"> of {m.trained}</span>}</td>
                <td>{m.backend}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>Slots</h2>
      <div class="table-wrap" tabIndex={0} role="region" aria-label="Slots">
        <table class="slots">
          <thead><tr><th scope="col">Model</th><th scope="col">Slot</th><th scope="col">State</th><th scope="col">Cached tokens</th><th scope="col">Prompt</th><th scope="col">Generated</th></tr></thead>
          <tbody>
            {slots.map((s) => (
              <tr data-slot={`${s.model}/${s.id}`}>
                <td>{s.model}</td>
                <td>{s.id}</td>
                <td><span class={`state ${s.state}`}>{s.state}</span></td>
                <td>{s.cached_tokens}</td>
                <td>{s.prompt_tokens}</td>
                <td>{s.generated_tokens}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
