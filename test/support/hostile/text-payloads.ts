/**
 * Cheap requests with large answers or large texts (issue 29, item 8), for bench/hostile-input.ts's
 * `text` set, on an embedded gateway with no upstreams (the built-in `local` provider answers):
 * 2,048 inputs to text-embedding-3-large at its full 3,072 dimensions (refused since the bound on
 * inputs × dimensions), the largest answer the bound allows (1,024 × 3,072 floats), 30 MB of text to
 * count_tokens (refused since the text bound) and the largest text allowed, and a 25 s 720p video with
 * sound from the local provider; and two large answers of an OpenAI-style upstream (`upstream`, the
 * fake's base URL: text-embedding-3-small answered in base64, bge-m3 in floats). Each `send` checks
 * the answer; every body is built before measuring.
 */
import assert from 'node:assert/strict';
import type { HostilePayload } from './measure.ts';

/** The config of the gateway these payloads expect: two routes to an OpenAI-style fake at `baseUrl`. */
export function textPayloadsConfig(baseUrl: string, apiKey: string): Record<string, unknown> {
  const upstream = { type: 'openai', baseUrl, apiKey, timeoutMs: 60_000 };
  return {
    providers: { emb: upstream, 'emb-float': { ...upstream, options: { embeddingsEncoding: 'float' } } },
    routes: { 'text-embedding-3-small': ['emb'], 'bge-m3': [{ provider: 'emb-float', model: 'BAAI/bge-m3' }] },
  };
}

export function textPayloads(url: string, key: string): HostilePayload[] {
  const words = (n: number, i: number) => `input ${i} ${'lorem ipsum '.repeat(n)}`;
  const manyInputs = JSON.stringify({ model: 'text-embedding-3-large', input: Array.from({ length: 2048 }, (_, i) => words(1, i)) });
  const allowedInputs = JSON.stringify({ model: 'text-embedding-3-large', input: Array.from({ length: 1024 }, (_, i) => words(1, i)) });
  const countBody = (bytes: number) => JSON.stringify({ model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'word, '.repeat(Math.floor(bytes / 6)) }] });
  const upstreamBase64 = JSON.stringify({ model: 'text-embedding-3-small', input: Array.from({ length: 2048 }, (_, i) => words(1, i)) });
  const upstreamFloats = JSON.stringify({ model: 'bge-m3', input: Array.from({ length: 2048 }, (_, i) => words(1, i)) });
  const thirtyMb = countBody(30 * 1000 * 1000);
  const allowedText = countBody(8 * 1024 * 1024 - 1024);
  return [
    {
      name: '2,048 inputs × 3,072 dimensions, float (local)',
      async send() {
        const res = await post(url, key, '/api/v1/embeddings', manyInputs);
        // Before the bound: 200 and about 134 MB of floats; since: 400 naming input.
        if (res.status === 200) assert.equal((JSON.parse(res.text) as { data: unknown[] }).data.length, 2048);
        else assert.equal(res.status, 400, res.text.slice(0, 300));
        note(`embeddings 2,048 × 3,072: ${res.status}, ${(res.text.length / 1e6).toFixed(1)} MB`);
      },
    },
    {
      name: '1,024 inputs × 3,072 dimensions, float (local, the most allowed)',
      async send() {
        const res = await post(url, key, '/api/v1/embeddings', allowedInputs);
        assert.equal(res.status, 200, res.text.slice(0, 300));
        const body = JSON.parse(res.text) as { data: Array<{ embedding: number[] }> };
        assert.equal(body.data.length, 1024);
        assert.equal(body.data[1023]?.embedding.length, 3072);
        note(`embeddings 1,024 × 3,072: ${(res.text.length / 1e6).toFixed(1)} MB`);
      },
    },
    {
      name: '2,048 × 1,536 from an upstream answering base64, float to the client',
      async send() {
        const res = await post(url, key, '/api/v1/embeddings', upstreamBase64);
        assert.equal(res.status, 200, res.text.slice(0, 300));
        assert.equal((JSON.parse(res.text) as { data: unknown[] }).data.length, 2048);
      },
    },
    {
      name: '2,048 × 1,024 from an upstream answering floats, float to the client',
      async send() {
        const res = await post(url, key, '/api/v1/embeddings', upstreamFloats);
        assert.equal(res.status, 200, res.text.slice(0, 300));
        assert.equal((JSON.parse(res.text) as { data: unknown[] }).data.length, 2048);
      },
    },
    {
      name: 'count_tokens with 30 MB of text (local model)',
      async send() {
        const res = await post(url, key, '/api/v1/messages/count_tokens', thirtyMb);
        // Before the bound: 200 counted; since: 400 in Anthropic's shape.
        assert.ok(res.status === 200 || res.status === 400, `${res.status} ${res.text.slice(0, 300)}`);
        note(`count_tokens 30 MB: ${res.status} ${res.text.slice(0, 120)}`);
      },
    },
    {
      name: 'count_tokens with 8 MiB of text (local model, the most allowed)',
      async send() {
        const res = await post(url, key, '/api/v1/messages/count_tokens', allowedText);
        assert.equal(res.status, 200, res.text.slice(0, 300));
        assert.ok((JSON.parse(res.text) as { input_tokens: number }).input_tokens > 2_000_000);
      },
    },
    {
      name: 'a 25 s 720p video with sound (local provider)',
      async send() {
        const created = await post(url, key, '/api/v1/generation/create', JSON.stringify({ model: 'grok-imagine-video', input: { prompt: 'a fox running through snow', duration: 25, resolution: '720p' } }));
        assert.equal(created.status, 200, created.text.slice(0, 300));
        const taskId = (JSON.parse(created.text) as { data: { taskId: string } }).data.taskId;
        const deadline = Date.now() + 120_000;
        for (;;) {
          const res = await fetch(`${url}/api/v1/task/status/${taskId}`, { headers: { authorization: `Bearer ${key}` } });
          const status = ((await res.json()) as { data: { status: string } }).data.status;
          if (status === 'finished') return;
          assert.ok(status !== 'failed' && status !== 'expired' && Date.now() < deadline, `video task ${status}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      },
    },
  ];
}

function note(line: string): void {
  process.stderr.write(`  ${line}\n`);
}

async function post(url: string, key: string, path: string, body: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url + path, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
  return { status: res.status, text: await res.text() };
}
