import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { registerSecret } from '../config/redact.ts';
import { CHILD_EXEC_ARGV, MODULE_EXT } from '../config/runtime.ts';
import { sendHttp } from '../http/client.ts';

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

/** The reason a target is refused, or undefined when it may be loaded. */
export function refusalReason(baseUrl: string, allowRemote: boolean): string | undefined {
  if (allowRemote || isLoopback(baseUrl)) return undefined;
  return `refusing to send load to non-loopback target ${new URL(baseUrl).host} without --allow-remote`;
}

const EMBEDDED_SCRIPT = fileURLToPath(new URL(`./embedded-server${MODULE_EXT}`, import.meta.url));

/** Starts the reference server in a child process and resolves once it listens. */
export async function startEmbeddedTarget(options: { rateLimit?: number; bodyLimit?: number } = {}): Promise<Target> {
  const child = fork(EMBEDDED_SCRIPT, [], {
    execArgv: [...CHILD_EXEC_ARGV],
    env: { ...process.env, KGATE_EMBEDDED_OPTIONS: JSON.stringify(options) },
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

/** The result of one small request made outside the load run (preflight, discovery, probes). */
export interface SimpleResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Largest answer simpleRequest reads (the conformance client's cap). */
const SIMPLE_MAX_BYTES = 8 * 1024 * 1024;

/**
 * Sends one request and collects the answer; rejects on transport errors and after `timeoutMs`
 * for the whole exchange. It goes through the conformance suite's client, so a hostile target gets
 * the same bounds here: one deadline, an 8 MiB cap, no decompression.
 */
export async function simpleRequest(
  url: string,
  options: {
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string | Buffer;
    timeoutMs?: number;
  } = {},
): Promise<SimpleResponse> {
  const response = await sendHttp({
    method: options.method ?? 'GET',
    url,
    headers: options.headers ?? {},
    body: options.body,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxBytes: SIMPLE_MAX_BYTES,
  });
  return { status: response.status, headers: response.headers, body: response.body.toString('utf8') };
}
