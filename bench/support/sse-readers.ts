/**
 * Many SSE readers of one agent conversation in a child process (bench/support/sse-reader-process.ts),
 * driven over IPC: open N, collect the delivery delays so far, close them.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import type { ReaderCommand, ReaderReply } from './sse-reader-process.ts';

export interface SseReaders {
  pid: number;
  /** Opens `count` readers; resolves once each has its 200 and first frame. */
  open(url: string, key: string, count: number): Promise<{ opened: number; ms: number }>;
  /** The delays (ms, arrival minus the event's createdAt) since the last collect, each with its event's sequence. */
  collect(): Promise<{ delays: number[]; sequences: number[]; received: number; badStatus: number }>;
  close(): Promise<void>;
  stop(): Promise<void>;
}

export async function startSseReaders(): Promise<SseReaders> {
  const child: ChildProcess = fork(join(import.meta.dirname, 'sse-reader-process.ts'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  const ask = <R extends ReaderReply['reply']>(command: ReaderCommand, reply: R): Promise<Extract<ReaderReply, { reply: R }>> =>
    new Promise((resolve, reject) => {
      const onMessage = (message: ReaderReply) => {
        child.off('message', onMessage);
        if (message.reply === 'error') reject(new Error(`SSE readers: ${message.message}`));
        else if (message.reply !== reply) reject(new Error(`SSE readers answered ${message.reply} to ${command.cmd}`));
        else resolve(message as Extract<ReaderReply, { reply: R }>);
      };
      child.on('message', onMessage);
      child.send(command);
    });
  return {
    pid: child.pid ?? 0,
    async open(url, key, count) {
      const { opened, ms } = await ask({ cmd: 'open', url, key, count }, 'open');
      return { opened, ms };
    },
    async collect() {
      const { delays, sequences, received, badStatus } = await ask({ cmd: 'collect' }, 'collect');
      return { delays, sequences, received, badStatus };
    },
    async close() {
      await ask({ cmd: 'close' }, 'close');
    },
    async stop() {
      if (child.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.disconnect();
      });
    },
  };
}
