// ForgeLM's jlink image as a child process: `forge model synth` makes a random-weight model, then
// `forge serve` runs on a free loopback port. The tests talk to it over HTTP and stop it at the end.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const here = import.meta.dirname ?? new URL('.', import.meta.url).pathname;

function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

/** Starts the image's server; resolves to { base, key, stop() } once /health answers. */
export async function startImageServer(key) {
  const image = resolve(process.env.FORGE_IMAGE ?? join(here, '../../../target/forge'));
  const forge = join(image, 'bin/forge');
  if (!existsSync(forge)) {
    throw new Error(`no image at ${image}: build it first (mvn package), or set FORGE_IMAGE`);
  }
  const work = mkdtempSync(join(tmpdir(), 'forge-node-'));
  // A bare environment, as a user runs it: the image brings its own Java.
  const env = { PATH: '/usr/bin:/bin', HOME: work };
  const model = join(work, 'tiny.gguf');
  execFileSync(forge, ['model', 'synth', '-o', model], { env, stdio: 'ignore', timeout: 120_000 });
  const port = await freePort();
  const logFile = join(work, 'server.log');
  const log = openSync(logFile, 'w');
  const child = spawn(forge, ['serve', '-m', model, '--alias', 'tiny', '--port', String(port), '-c', '2048', '-np', '2',
    '-t', '2', '--api-key', key], { env, stdio: ['ignore', log, log] });
  let exited = false;
  child.once('exit', () => { exited = true; });
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (!exited) {
      const gone = new Promise((ok) => child.once('exit', ok));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    }
    rmSync(work, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/health`)).status === 200) {
        return { base, key, stop };
      }
    } catch {
      // not listening yet
    }
    if (exited || Date.now() > deadline) {
      const text = readFileSync(logFile, 'utf8');
      await stop();
      throw new Error(`the server did not come up:\n${text}`);
    }
    await new Promise((ok) => setTimeout(ok, 200));
  }
}

/** The parameters a raw chat request had accepted without effect (the server's X-Forge-Ignored-Params). */
export async function ignoredParams(server, body) {
  const r = await fetch(`${server.base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.key}` },
    body: JSON.stringify(body),
  });
  if (r.status !== 200) {
    throw new Error(`probe failed: ${r.status} ${await r.text()}`);
  }
  await r.text();
  return r.headers.get('x-forge-ignored-params') ?? '';
}

export const WEATHER_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};

export const PERSON_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer' } },
  required: ['name', 'age'],
  additionalProperties: false,
};

/** Before issue #7 the server accepts tool_choice and response_format without effect; after, it honours them. */
export async function honours(server, param) {
  const body = { model: 'tiny', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] };
  if (param === 'tool_choice') {
    body.tool_choice = 'required';
    body.tools = [{ type: 'function', function: { name: 'get_weather', parameters: WEATHER_SCHEMA } }];
  } else {
    body.response_format = { type: 'json_schema', json_schema: { name: 'p', schema: PERSON_SCHEMA } };
  }
  const ignored = await ignoredParams(server, body);
  return !ignored.split(/,\s*/).includes(param);
}
