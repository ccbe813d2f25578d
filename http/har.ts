// Recorded HTTP traffic, a HAR 1.2 log (what browsers' developer tools, proxies and gateways export),
// read as plain records: the one reader of `kgate drift har` (which judges the answers) and of
// `kgate load --mix-from` (which shapes its arrivals after the requests). Reading only: nothing is
// judged here, and the subscription keys a request carries are handed to the caller to mask, never
// kept in a record's fields of their own.

import { readFileSync } from 'node:fs';

/** A file that is not a HAR log. */
export class HarFormatError extends Error {
  override name = 'HarFormatError';
}

/** A file given as a HAR log that cannot be read as one: `problem` says which step failed, `detail` why. */
export class HarFileError extends Error {
  override name = 'HarFileError';
  constructor(
    readonly problem: 'unreadable' | 'not JSON' | 'not HAR',
    readonly detail: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads a HAR file: its text, parsed, with a `log.entries` array; throws HarFileError naming the
 * step that failed (the file cannot be read, is not JSON, or is JSON without log.entries).
 */
export function readHarFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new HarFileError('unreadable', reason, `cannot read '${file}' (${reason})`);
  }
  let har: unknown;
  try {
    har = JSON.parse(text);
  } catch (error) {
    const reason = (error as Error).message;
    throw new HarFileError('not JSON', reason, `'${file}' is not JSON (${reason})`);
  }
  if (!hasEntries(har)) throw new HarFileError('not HAR', 'no log.entries array', notHar(file));
  return har;
}

/** Whether a parsed log has its `log.entries` array. */
function hasEntries(har: unknown): har is { log: { entries: unknown[] } } {
  return isObject(har) && isObject(har.log) && Array.isArray(har.log.entries);
}

/** The message of a log without its entries. */
function notHar(source: string): string {
  return `${source} is not a HAR file (no log.entries array)`;
}

/** A header as a HAR log records it. */
export interface HarHeader {
  name: string;
  value: string;
}

/** One recorded exchange, as read from `log.entries`. */
export interface HarEntry {
  /** Position in `log.entries`. */
  index: number;
  /** Upper-case method (GET when the log leaves it out). */
  method: string;
  /** The request URL as recorded. */
  rawUrl: string;
  /** The request URL read against a placeholder origin (a log may record a path alone), or undefined when it is not a URL. */
  url?: URL;
  /** The raw request object (`headers`, `postData` ...). */
  request: Record<string, unknown>;
  /** The raw response object (`status`, `headers`, `content` ...). */
  response: Record<string, unknown>;
}

/** A plain object (not null, not an array). */
function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The entries of a parsed HAR log; throws HarFormatError when it has no `log.entries` array. */
export function harEntries(har: unknown, source: string): HarEntry[] {
  if (!hasEntries(har)) throw new HarFormatError(notHar(source));
  return har.log.entries.map((entry, index) => {
    const request = isObject(entry) && isObject(entry.request) ? entry.request : {};
    const response = isObject(entry) && isObject(entry.response) ? entry.response : {};
    const rawUrl = String(request.url ?? '');
    const url = parseUrl(rawUrl);
    return {
      index,
      method: String(request.method ?? 'GET').toUpperCase(),
      rawUrl,
      ...(url ? { url } : {}),
      request,
      response,
    };
  });
}

function parseUrl(raw: string): URL | undefined {
  try {
    return new URL(raw, 'http://har.invalid');
  } catch {
    return undefined;
  }
}

/** The value of a header of a recorded list (the first of that name, case-insensitive). */
export function harHeader(headers: unknown, name: string): string | undefined {
  if (!Array.isArray(headers)) return undefined;
  const lower = name.toLowerCase();
  const found = (headers as HarHeader[]).find((item) => isObject(item) && String(item.name).toLowerCase() === lower);
  return found ? String(found.value) : undefined;
}

/** The recorded headers as one record (repeated names joined with ', ', as a client would read them). */
export function harHeaderRecord(headers: unknown): Record<string, string> {
  const record: Record<string, string> = {};
  if (!Array.isArray(headers)) return record;
  for (const item of headers) {
    if (!isObject(item)) continue;
    const name = String(item.name).toLowerCase();
    record[name] = record[name] === undefined ? String(item.value) : `${record[name]}, ${String(item.value)}`;
  }
  return record;
}

/** The form fields of a recorded POST body (HAR `postData.params`, else its text), if any. */
export function harForm(request: Record<string, unknown>): Record<string, string> | undefined {
  const postData = isObject(request.postData) ? request.postData : undefined;
  if (postData && Array.isArray(postData.params)) {
    return Object.fromEntries(
      postData.params.filter(isObject).map((param) => [String(param.name), String(param.value ?? '')]),
    );
  }
  if (postData && typeof postData.text === 'string') return Object.fromEntries(new URLSearchParams(postData.text));
  return undefined;
}

/** The query parameters that carry a subscription key in a URL, as the interface's clients may send it. */
export const KEY_QUERY_PARAMETERS = ['subscription-key', 'Subscription-Key'] as const;

/** Every subscription key a recorded request carries (its header, or a key query parameter), for the caller to mask. */
export function harKeys(entry: Pick<HarEntry, 'request' | 'url'>): string[] {
  const keys = [
    harHeader(entry.request.headers, 'ocp-apim-subscription-key'),
    ...KEY_QUERY_PARAMETERS.map((name) => entry.url?.searchParams.get(name) ?? undefined),
  ];
  return keys.filter((key): key is string => typeof key === 'string' && key !== '');
}

/** The recorded response body as text (a base64 one decoded). */
export function harBody(content: Record<string, unknown>): string {
  const text = typeof content.text === 'string' ? content.text : '';
  return content.encoding === 'base64' ? Buffer.from(text, 'base64').toString('utf8') : text;
}

/** The response's content object of an entry (empty when not recorded). */
export function harContent(response: Record<string, unknown>): Record<string, unknown> {
  return isObject(response.content) ? response.content : {};
}
