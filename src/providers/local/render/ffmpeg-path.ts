import { spawn } from 'node:child_process';
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { delimiter, join } from 'node:path';

/**
 * Finds and runs ffmpeg. `ffmpeg` from PATH wins (Debian's build is newer); otherwise the static
 * build of `@ffmpeg-installer/ffmpeg`, so a fresh machine needs only `npm install`. Nothing happens
 * at import time: the binary is located on first use and remembered.
 */

export class FfmpegError extends Error {
  /** The last lines ffmpeg wrote to stderr (it explains every failure there). */
  readonly stderr: string;
  readonly exitCode: number | null;
  readonly timedOut: boolean;

  constructor(message: string, details: { stderr: string; exitCode: number | null; timedOut: boolean; cause?: unknown }) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'FfmpegError';
    this.stderr = details.stderr;
    this.exitCode = details.exitCode;
    this.timedOut = details.timedOut;
  }
}

export interface FfmpegRunOptions {
  /** Killed (SIGKILL) after this many milliseconds; the promise rejects with `timedOut`. */
  timeoutMs: number;
  /** Written to ffmpeg's stdin (read with `-i pipe:0`), then stdin is closed. */
  stdin?: Buffer;
}

export interface FfmpegRunResult {
  stdout: Buffer;
  stderr: string;
}

let located: string | undefined;

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, fsConstants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The ffmpeg binary: PATH first, then the registry package. Located once, on first call. */
export function ffmpegPath(): string {
  if (located !== undefined) return located;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, process.platform === 'win32' ? 'ffmpeg.exe' : 'ffmpeg');
    if (isExecutableFile(candidate)) {
      located = candidate;
      return candidate;
    }
  }
  try {
    const require = createRequire(import.meta.url);
    const installer = require('@ffmpeg-installer/ffmpeg') as { path: string };
    if (isExecutableFile(installer.path)) {
      located = installer.path;
      return installer.path;
    }
  } catch (error) {
    throw new FfmpegError('ffmpeg was not found on PATH and @ffmpeg-installer/ffmpeg is not installed for this platform', {
      stderr: '',
      exitCode: null,
      timedOut: false,
      cause: error,
    });
  }
  throw new FfmpegError('ffmpeg was not found on PATH and the @ffmpeg-installer binary is not executable', {
    stderr: '',
    exitCode: null,
    timedOut: false,
  });
}

// At most one ffmpeg per core at a time: the encoder already uses two threads, and a burst of
// renders (a test suite, a queue backlog) would otherwise thrash the machine and hit timeouts.
let running = 0;
const waiting: Array<() => void> = [];

async function acquireSlot(): Promise<void> {
  if (running < availableParallelism()) {
    running += 1;
    return;
  }
  await new Promise<void>((resolve) => waiting.push(resolve));
}

function releaseSlot(): void {
  const next = waiting.shift();
  if (next) next();
  else running -= 1;
}

const STDERR_KEEP = 4000;

/** Runs ffmpeg with these arguments (no shell). Rejects with FfmpegError on a non-zero exit or timeout. */
export async function runFfmpeg(args: readonly string[], options: FfmpegRunOptions): Promise<FfmpegRunResult> {
  const binary = ffmpegPath();
  await acquireSlot();
  try {
    return await spawnFfmpeg(binary, args, options);
  } finally {
    releaseSlot();
  }
}

function spawnFfmpeg(binary: string, args: readonly string[], options: FfmpegRunOptions): Promise<FfmpegRunResult> {
  return new Promise((resolve, reject) => {
    // -nostdin keeps ffmpeg from reading the terminal unless we feed it data on purpose.
    const fullArgs = options.stdin ? ['-hide_banner', ...args] : ['-hide_banner', '-nostdin', ...args];
    const child = spawn(binary, fullArgs, {
      stdio: ['pipe', 'pipe', 'pipe'],
      shell: false,
      windowsHide: true,
    });
    const stdout: Buffer[] = [];
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEEP);
    });
    child.stdin.on('error', () => {
      // ffmpeg may exit before reading all of stdin (a bad argument); the exit code reports it.
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new FfmpegError(`ffmpeg could not be started: ${error.message}`, { stderr, exitCode: null, timedOut, cause: error }));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (timedOut) {
        reject(new FfmpegError(`ffmpeg timed out after ${options.timeoutMs} ms`, { stderr, exitCode: code, timedOut }));
      } else if (code !== 0) {
        const lastLine = stderr.trim().split('\n').at(-1) ?? '';
        reject(new FfmpegError(`ffmpeg exited with code ${code}: ${lastLine}`, { stderr, exitCode: code, timedOut }));
      } else {
        resolve({ stdout: Buffer.concat(stdout), stderr });
      }
    });
    if (options.stdin) child.stdin.end(options.stdin);
    else child.stdin.end();
  });
}
