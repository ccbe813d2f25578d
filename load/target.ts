import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compileCacheFolder, NATIVE } from '../config/compile-cache.cjs';
import { registerSecret } from '../config/redact.ts';
import { CHILD_EXEC_ARGV, MODULE_EXT } from '../config/runtime.ts';
import { type RawResponse, sendHttp } from '../http/client.ts';

/** Where a load run or probe sends its requests. */
export interface Target {
  baseUrl: string;
  key?: string;
  /** True when kgate started the reference server itself. */
  embedded: boolean;
  close(): Promise<void>;
}

/** True when a URL's host is a loopback address (127.0.0.0/8, ::1, localhost). */
export function isLoopback(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

const EMBEDDED_SCRIPT = fileURLToPath(new URL(`./embedded-server${MODULE_EXT}`, import.meta.url));
const COMPILE_CACHE_PRELOAD = fileURLToPath(new URL('../config/compile-cache-preload.cjs', import.meta.url));

/** Starts the reference server in a child process and resolves once it listens. */
export async function startEmbeddedTarget(options: { rateLimit?: number; bodyLimit?: number } = {}): Promise<Target> {
  // On Node 22 and later it keeps its compiled code between runs, as the CLI does (config/compile-cache.cjs).
  const compileCache = NATIVE ? compileCacheFolder() : undefined;
  const child = fork(EMBEDDED_SCRIPT, [], {
    execArgv: [...(compileCache ? ['--require', COMPILE_CACHE_PRELOAD] : []), ...CHILD_EXEC_ARGV],
    env: {
      ...process.env,
      ...(compileCache ? { KGATE_COMPILE_CACHE: compileCache } : {}),
      KGATE_EMBEDDED_OPTIONS: JSON.stringify(options),
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ready = await new Promise<{ url: string; key: string }>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('the embedded reference server did not start within 30 s')),
      30_000,
    );
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message as { url: string; key: string });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the embedded reference server exited with code ${code}`));
    });
  });
  registerSecret(ready.key);
  return {
    baseUrl: ready.url,
    key: ready.key,
    embedded: true,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.disconnect();
        setTimeout(() => child.kill(), 3000).unref();
      }),
  };
}

/** Largest answer read through the shared client (the conformance client's cap); a larger one is a transport error. */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** One request of a load run, probe or preflight, before the shared client's settings are added. */
export interface ExchangeRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Deadline for the whole exchange, in milliseconds. */
  timeoutMs: number;
  /** Largest body read (default MAX_ANSWER_BYTES). */
  maxBytes?: number;
}

/**
 * Sends one request through kgate's shared client (`http/client.ts`), the transport of every
 * command: one deadline for the whole exchange, a size cap, no decompression, its framing rules.
 * Every request of `load/` that is not autocannon's goes through here (the preflight, both
 * probes, the validated share of a load run), so the client's settings are given in this one place.
 */
export function exchange(url: string, request: ExchangeRequest): Promise<RawResponse> {
  return sendHttp({
    method: request.method ?? 'GET',
    url,
    headers: request.headers ?? {},
    body: request.body,
    timeoutMs: request.timeoutMs,
    maxBytes: request.maxBytes ?? MAX_ANSWER_BYTES,
  });
}

/** The result of one small request made outside the load run (preflight, discovery). */
export interface SimpleResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Sends one request through the shared client (`exchange`) and reads its body as text; rejects on transport errors. */
export async function simpleRequest(
  url: string,
  options: {
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string | Buffer;
    timeoutMs?: number;
  } = {},
): Promise<SimpleResponse> {
  const response = await exchange(url, { ...options, timeoutMs: options.timeoutMs ?? 10_000 });
  return { status: response.status, headers: response.headers, body: response.body.toString('utf8') };
}
