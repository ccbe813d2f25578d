import { request as httpRequest } from 'node:http';

/** One answer as the tests see it. */
export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The parsed body, or undefined when the body is not JSON. */
  json: unknown;
}

/** Sends one request with node:http (no client-side URL normalization) and reads the whole answer. */
export function send(
  base: string,
  path: string,
  options: { method?: string; key?: string; body?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers['Ocp-Apim-Subscription-Key'] = options.key;
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
      headers['content-length'] = String(Buffer.byteLength(options.body));
    }
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
        headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer to ${path} within 10 s`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Builds a query string with encodeURIComponent, keeping parameter order. */
export function qs(params: Record<string, string | number>): string {
  return Object.entries(params)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`)
    .join('&');
}
