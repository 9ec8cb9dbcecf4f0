// node --test: the dashboard's reading of /metrics, without a browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buckets, parseMetrics, quantileBetween, total } from '../src/metrics.js';

const scrape = (ttft) => parseMetrics(`# HELP forge_time_to_first_token_seconds ttft
# TYPE forge_time_to_first_token_seconds histogram
${ttft.map(([le, n]) => `forge_time_to_first_token_seconds_bucket{model="a",le="${le}"} ${n}`).join('\n')}
forge_time_to_first_token_seconds_bucket{model="b",le="0.1"} 1
forge_time_to_first_token_seconds_bucket{model="b",le="1.0"} 1
forge_time_to_first_token_seconds_bucket{model="b",le="+Inf"} 1
forge_queue_depth{model="a"} 2
forge_queue_depth{model="b"} 3
forge_http_requests_total{route="/v1/chat/completions",status="200"} 5.0
`);

test('samples with labels, summed over models', () => {
  const s = scrape([['0.1', 0], ['1.0', 0], ['+Inf', 0]]);
  assert.equal(total(s, 'forge_queue_depth'), 5);
  assert.equal(total(s, 'forge_http_requests_total'), 5);
  assert.deepEqual(s.find((x) => x.name === 'forge_http_requests_total').labels, { route: '/v1/chat/completions', status: '200' });
  assert.deepEqual(buckets(s, 'forge_time_to_first_token_seconds'), [[0.1, 1], [1, 1], [Infinity, 1]]);
});

test('quantiles of the observations between two scrapes only', () => {
  const before = buckets(scrape([['0.1', 10], ['1.0', 10], ['+Inf', 10]]), 'forge_time_to_first_token_seconds');
  // then 4 more, all between 0.1 and 1 s
  const after = buckets(scrape([['0.1', 10], ['1.0', 14], ['+Inf', 14]]), 'forge_time_to_first_token_seconds');
  assert.equal(quantileBetween(before, after, 0.5), 0.1 + 0.9 * 0.5);
  assert.ok(Math.abs(quantileBetween(before, after, 0.95) - (0.1 + 0.9 * 0.95)) < 1e-12);
  assert.equal(quantileBetween(after, after, 0.5), null, 'nothing new: no point');
  const slow = buckets(scrape([['0.1', 10], ['1.0', 10], ['+Inf', 12]]), 'forge_time_to_first_token_seconds');
  assert.equal(quantileBetween(before, slow, 0.95), 1, 'above the top bucket: its lower bound');
});
