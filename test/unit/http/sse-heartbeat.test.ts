import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { SseHeartbeat } from '../../../src/http/sse.ts';
import { createAnthropicStreamEncoder } from '../../../src/protocols/anthropic-messages/anthropic-stream.encoder.ts';
import { createOpenAiStreamEncoder } from '../../../src/protocols/openai-chat/openai-stream.encoder.ts';

function fakeResponse(): { res: ServerResponse; written: string[] } {
  const written: string[] = [];
  const res = { destroyed: false, writableEnded: false, write: (text: string) => written.push(text) > 0 } as unknown as ServerResponse;
  return { res, written };
}

test('silent streams get a keep-alive frame within the allowed silence; busy ones do not', async () => {
  const heartbeat = new SseHeartbeat(60);
  const silent = fakeResponse();
  const busy = fakeResponse();
  const busyStream = { res: busy.res, encoder: createAnthropicStreamEncoder(), wrote: true };
  heartbeat.add({ res: silent.res, encoder: createOpenAiStreamEncoder({ includeUsage: false }), wrote: true });
  heartbeat.add(busyStream);
  const keepBusy = setInterval(() => {
    busyStream.wrote = true;
  }, 5);
  await sleep(100);
  clearInterval(keepBusy);
  assert.ok(silent.written.length >= 1, 'the silent stream was pinged');
  assert.ok(silent.written.every((frame) => frame === ': ping\n\n'));
  assert.equal(busy.written.length, 0, 'a stream that writes is left alone');
  heartbeat.stop();
});

test('the timer runs only while streams are open', () => {
  const heartbeat = new SseHeartbeat(60);
  const stream = { res: fakeResponse().res, encoder: createOpenAiStreamEncoder({ includeUsage: false }), wrote: true };
  heartbeat.add(stream);
  assert.equal(heartbeat.size, 1);
  heartbeat.delete(stream);
  assert.equal(heartbeat.size, 0);
});
