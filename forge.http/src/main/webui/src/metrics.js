// Reading GET /metrics (Prometheus text format) for the dashboard: samples by name and labels,
// and quantiles of a histogram's observations between two scrapes.

/** [{name, labels, value}] of every sample line. */
export function parseMetrics(text) {
  const samples = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) {
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) {
      continue;
    }
    const labels = {};
    for (const l of (m[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1]] = l[2].replace(/\\(.)/g, (_, ch) => (ch === 'n' ? '\n' : ch));
    }
    samples.push({ name: m[1], labels, value: Number(m[4]) });
  }
  return samples;
}

/** The sum of a metric's samples over all label values (e.g. every model). */
export function total(samples, name) {
  return samples.filter((s) => s.name === name).reduce((a, s) => a + s.value, 0);
}

/** A histogram's cumulative buckets summed over its label values: [[upperBound, count]] sorted. */
export function buckets(samples, name) {
  const byBound = new Map();
  for (const s of samples) {
    if (s.name === `${name}_bucket`) {
      const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
      byBound.set(le, (byBound.get(le) ?? 0) + s.value);
    }
  }
  return [...byBound.entries()].sort((a, b) => a[0] - b[0]);
}

/**
 * The q-quantile of the observations made between two scrapes' buckets (as Prometheus's
 * histogram_quantile: linear within the bucket), or null when there were none.
 */
export function quantileBetween(before, after, q) {
  const prev = new Map(before);
  const counts = after.map(([le, n]) => [le, n - (prev.get(le) ?? 0)]);
  const count = counts.length ? counts[counts.length - 1][1] : 0;
  if (count <= 0) {
    return null;
  }
  const rank = q * count;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const [le, n] of counts) {
    if (n >= rank) {
      if (le === Infinity) {
        return lowerBound; // above the top bucket: its lower bound is all that is known
      }
      const inBucket = n - lowerCount;
      return inBucket > 0 ? lowerBound + ((le - lowerBound) * (rank - lowerCount)) / inBucket : le;
    }
    lowerBound = le;
    lowerCount = n;
  }
  return lowerBound;
}
