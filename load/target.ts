import { fork } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { fileURLToPath } from 'node:url';
import { registerSecret } from '../config/redact.ts';
import { CHILD_EXEC_ARGV, MODULE_EXT } from '../config/runtime.ts';

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

/** Sends one request and collects the answer; rejects on transport errors and after `timeoutMs`. */
export function simpleRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; timeoutMs?: number } = {},
): Promise<SimpleResponse> {
  return new Promise((resolve, reject) => {
    const send = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = send(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.setTimeout(options.timeoutMs ?? 10_000, () =>
      req.destroy(new Error(`no answer within ${options.timeoutMs ?? 10_000} ms`)),
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
