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

/**
 * Starts the image's server; resolves to { base, key, stop() } once /health answers.
 * `extra` are more `forge serve` flags (e.g. a template); `models` are more models to synthesize
 * and serve besides `tiny`, each `[fileName, ...forge model synth flags]` (with `--mmproj NAME`, the
 * model's projector too, served with it); `synth` are more flags for
 * `tiny` itself and `context` the server's `-c` (for prompts over 1024 tokens, with `--ctx` in `synth`).
 */
export async function startImageServer(key, extra = [], { models = [], synth = [], context = 2048 } = {}) {
  const image = resolve(process.env.FORGE_IMAGE ?? join(here, '../../../target/forge'));
  const forge = join(image, 'bin/forge');
  if (!existsSync(forge)) {
    throw new Error(`no image at ${image}: build it first (mvn package), or set FORGE_IMAGE`);
  }
  const work = mkdtempSync(join(tmpdir(), 'forge-node-'));
  // A bare environment, as a user runs it: the image brings its own Java.
  const env = { PATH: '/usr/bin:/bin', HOME: work };
  const model = join(work, 'tiny.gguf');
  execFileSync(forge, ['model', 'synth', '-o', model, ...synth], { env, stdio: 'ignore', timeout: 120_000 });
  const more = models.flatMap(([file, ...flags]) => {
    // `--mmproj NAME` among the synth flags: the projector is written into the work folder and
    // given to this model (`--mmproj ID=FILE`; the model's id is its file's name)
    const at = flags.indexOf('--mmproj');
    const projector = at >= 0 ? join(work, flags[at + 1]) : null;
    if (projector) flags = flags.with(at + 1, projector);
    execFileSync(forge, ['model', 'synth', '-o', join(work, file), ...flags], { env, stdio: 'ignore', timeout: 120_000 });
    return ['-m', join(work, file), ...(projector ? ['--mmproj', `${file.replace(/\.gguf$/, '')}=${projector}`] : [])];
  });
  const port = await freePort();
  const logFile = join(work, 'server.log');
  const log = openSync(logFile, 'w');
  const child = spawn(forge, ['serve', '-m', model, '--alias', 'tiny', '--port', String(port), '-c', String(context), '-np', '2',
    '-t', '2', '--api-key', key, ...more, ...extra], { env, stdio: ['ignore', log, log] });
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

export const WEATHER_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};

/**
 * A schema whose JSON is bounded (an enum and a boolean): grammar-constrained noise finishes it
 * within a few tokens, so the SDKs whose APIs have no logit_bias (Anthropic's, Responses') get
 * a complete, schema-valid object.
 */
export const UNIT_SCHEMA = {
  type: 'object',
  properties: { unit: { enum: ['celsius', 'fahrenheit'] }, precise: { type: 'boolean' } },
  required: ['unit', 'precise'],
  additionalProperties: false,
};

export const PERSON_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer' } },
  required: ['name', 'age'],
  additionalProperties: false,
};

/**
 * A logit bias towards the tokens that close JSON strings, objects and arrays. Under a grammar a
 * random-weight model's output is valid but may ramble inside a string: the bias lets it finish
 * within the token budget (the grammar still decides what may come next).
 */
export async function closingBias(server) {
  const bias = {};
  for (const text of ['"', '}', ']']) {
    const r = await fetch(`${server.base}/tokenize`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.key}` },
      body: JSON.stringify({ content: text }),
    });
    const { tokens } = await r.json();
    bias[tokens[0]] = 6;
  }
  return bias;
}
