/**
 * A minimal, fast OpenAI-compatible `/v1/chat/completions` upstream for bench/chat, run in its own
 * process (`node bench/chat/fake-upstream.ts`; it prints `PORT <n>`). Answers are precomputed, so
 * the fake costs as little CPU as possible and the numbers measure the gateways, not the fake.
 *
 * - model `hold`: streams the role chunk and one content chunk, then keeps the stream open (idle)
 *   until the client goes away: the open-idle-streams memory measurement.
 * - any other model: a complete answer; with `stream: true` seven SSE frames (role, three content
 *   deltas, finish, usage when asked, [DONE]), each written separately as upstreams do.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const usage = { prompt_tokens: 24, completion_tokens: 9, total_tokens: 33 };
const created = Math.floor(Date.now() / 1000);
const completion = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created,
  model: 'fast',
  choices: [{ index: 0, message: { role: 'assistant', content: 'The quick brown fox jumps.', refusal: null }, logprobs: null, finish_reason: 'stop' }],
  usage,
});
const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created, model: 'fast', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
const frames = [chunk({ role: 'assistant', content: '' }), chunk({ content: 'The quick ' }), chunk({ content: 'brown fox ' }), chunk({ content: 'jumps.' }), chunk({}, 'stop')];
const usageFrame = `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created, model: 'fast', choices: [], usage })}\n\n`;
const done = 'data: [DONE]\n\n';

const server = createServer((req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (part: Buffer) => parts.push(part));
  req.on('end', () => {
    const raw = Buffer.concat(parts).toString('utf8');
    const stream = raw.includes('"stream":true');
    if (!stream) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(completion) });
      res.end(completion);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (raw.includes('"model":"hold"')) {
      res.write(frames[0]);
      res.write(frames[1]);
      return; // idle until the client leaves
    }
    for (const frame of frames) res.write(frame);
    if (raw.includes('"include_usage":true')) res.write(usageFrame);
    res.end(done);
  });
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;
server.requestTimeout = 0;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`PORT ${(server.address() as AddressInfo).port}\n`);
});
