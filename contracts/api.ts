import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type OperationInfo, operationLabel } from '../openapi/spec.ts';
import { validateResponse } from '../openapi/validator.ts';
import { CheckFailure, curlLine, excerpt, type Failure, type SentRequest, show } from './failure.ts';
import { sendHttp, TransportError } from './http.ts';

/** One operation of the spec, as the suite walks them. */
export type Operation = OperationInfo;

/** Renders `GET /academic/v1.0/evaluate`. */
export function labelOf(op: Pick<Operation, 'method' | 'path'>): string {
  return operationLabel(op);
}

/** Which key a request carries. */
export type KeyRole = 'full' | 'none' | 'wrong' | 'unsubscribed' | 'exhausted';

/** The subscription keys of a run; never printed. */
export interface Keys {
  full?: string;
  unsubscribed?: string;
  exhausted?: string;
}

/** A request of the suite, named by operation. */
export interface CallOptions {
  /** GET query parameters, or the form fields of a POST. */
  params?: Record<string, string>;
  pathParams?: Record<string, string>;
  /** A raw POST body sent instead of the encoded params (body-limit tests). */
  rawBody?: string | Buffer;
  /** Which key to send; `full` by default. */
  key?: KeyRole;
  /**
   * `error` marks a request the suite makes invalid on purpose: a status the spec does not
   * document is then accepted if it is a 4xx (the interface documents no error for many cases).
   */
  intent?: 'ok' | 'error';
  /** Retry a 429 after the stated wait (bounded); off for the rate-limit tests. */
  retryRateLimited?: boolean;
  /** Overrides the run's per-request deadline. */
  timeoutMs?: number;
}

/** A response read and validated by the fixture. */
export interface ApiResponse {
  operation: string;
  status: number;
  headers: Record<string, string>;
  contentType: string | undefined;
  text: string;
  /** The parsed body (JSON). */
  json: unknown;
  elapsedMs: number;
  request: SentRequest;
  curl: string;
  excerpt: string;
}

/** The settings the request fixture works with. */
export interface ApiSettings {
  baseUrl: string;
  keys: Keys;
  timeoutMs: number;
  maxBytes: number;
  /** Fixture checks switched off with --exclude-checks. */
  disabledChecks: ReadonlySet<string>;
  /** Folder where workers share transport failures per target (see BROKEN_TARGET_LIMIT). */
  breakerDir?: string;
}

/**
 * Circuit breaker shared by all workers through files: once a target has failed at the transport
 * level this often, further requests are not sent and their tests are skipped with the reason, so a
 * target that hangs or resets is reported in seconds instead of one deadline (and one worker
 * restart) per test. Timeouts and broken connections count for the whole target; oversized,
 * non-JSON or wrongly labelled bodies count for the operation only.
 */
export const BROKEN_TARGET_LIMIT = 3;
/** See BROKEN_TARGET_LIMIT; per operation. */
export const BROKEN_OPERATION_LIMIT = 2;
/** Prefix of the files that count transport failures. */
export const BREAKER_FILE_PREFIX = '.transport-failures-';
/** Checks whose failures feed the breaker. */
const TRANSPORT_CHECKS = new Set([
  'responds-within-timeout',
  'connection-completes',
  'body-within-size-cap',
  'body-is-json',
  'content-type-is-json',
]);

/** A request not sent because the target already failed at the transport level; its test is skipped. */
export class TargetBroken extends Error {
  override name = 'TargetBroken';
}

/** Forgets the transport failures counted by an earlier run. */
export function clearTransportFailures(dir: string): void {
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    if (name.startsWith(BREAKER_FILE_PREFIX)) rmSync(join(dir, name), { force: true });
  }
}

/** Key sent for the `wrong` role: well-formed, never valid. */
export const WRONG_KEY = '00000000000000000000000000000000';
const SUBSCRIPTION_HEADER = 'Ocp-Apim-Subscription-Key';
/** At most this many retries of a 429 on an ordinary request, each waiting at most MAX_RETRY_WAIT_MS. */
const MAX_RATE_LIMIT_RETRIES = 3;
const MAX_RETRY_WAIT_MS = 5_000;

/** The request fixture: builds, sends and validates every request of the suite. */
export class Api {
  /** Every request sent, for the test's own bookkeeping. */
  readonly sent: ApiResponse[] = [];

  constructor(readonly settings: ApiSettings) {}

  /** True when the run has a key for the role. */
  has(role: KeyRole): boolean {
    if (role === 'none' || role === 'wrong') return true;
    return Boolean(this.settings.keys[role]);
  }

  /** Sends one request of `op` and validates the response against the spec. */
  async call(op: Operation, options: CallOptions = {}): Promise<ApiResponse> {
    const retry = options.retryRateLimited ?? true;
    for (let attempt = 0; ; attempt++) {
      const response = await this.once(op, options);
      if (response.status !== 429 || !retry || attempt >= MAX_RATE_LIMIT_RETRIES) {
        this.validate(op, response, options.intent ?? 'ok');
        this.sent.push(response);
        return response;
      }
      await new Promise((resolve) => setTimeout(resolve, retryWaitMs(response)));
    }
  }

  /** Builds the request that `call` would send (used for curl lines and by checks that need the URL). */
  build(op: Operation, options: CallOptions = {}): SentRequest {
    let path = op.path;
    for (const [name, value] of Object.entries(options.pathParams ?? {})) {
      path = path.replace(`{${name}}`, encodeURIComponent(value));
    }
    const headers: Record<string, string> = {};
    const key = this.keyFor(options.key ?? 'full');
    if (key !== undefined) headers[SUBSCRIPTION_HEADER] = key;
    const params = new URLSearchParams(options.params ?? {}).toString();
    if (op.method === 'post') {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      const body = options.rawBody !== undefined ? String(options.rawBody) : params;
      return { method: 'POST', url: `${this.settings.baseUrl}${path}`, headers, body };
    }
    return { method: 'GET', url: `${this.settings.baseUrl}${path}${params ? `?${params}` : ''}`, headers };
  }

  private keyFor(role: KeyRole): string | undefined {
    if (role === 'none') return undefined;
    if (role === 'wrong') return WRONG_KEY;
    return this.settings.keys[role];
  }

  private breakerFile(scope: string): string | undefined {
    if (!this.settings.breakerDir) return undefined;
    const id = createHash('sha1').update(scope).digest('hex').slice(0, 12);
    return join(this.settings.breakerDir, `${BREAKER_FILE_PREFIX}${id}`);
  }

  /** Throws TargetBroken when earlier requests broke the target (or this operation) often enough. */
  private checkBreaker(op: Operation): void {
    const scopes = [
      { file: this.breakerFile(this.settings.baseUrl), limit: BROKEN_TARGET_LIMIT, what: 'this target' },
      {
        file: this.breakerFile(`${this.settings.baseUrl} ${op.operationId}`),
        limit: BROKEN_OPERATION_LIMIT,
        what: labelOf(op),
      },
    ];
    for (const { file, limit, what } of scopes) {
      const lines = file && existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
      if (lines.length >= limit) {
        throw new TargetBroken(
          `not run: ${lines.length} earlier requests to ${what} failed at the transport level (${[...new Set(lines)].join(', ')})`,
        );
      }
    }
  }

  /** Counts a transport-level failure for the breaker, then throws it. */
  private broken(op: Operation, failure: Failure): never {
    if (TRANSPORT_CHECKS.has(failure.check)) {
      const wholeTarget = failure.check === 'responds-within-timeout' || failure.check === 'connection-completes';
      const scopes = [`${this.settings.baseUrl} ${op.operationId}`, ...(wholeTarget ? [this.settings.baseUrl] : [])];
      for (const scope of scopes) {
        const file = this.breakerFile(scope);
        if (!file) continue;
        mkdirSync(dirname(file), { recursive: true });
        appendFileSync(file, `${failure.check}\n`);
      }
    }
    throw new CheckFailure(failure);
  }

  private async once(op: Operation, options: CallOptions): Promise<ApiResponse> {
    const request = this.build(op, options);
    const curl = curlLine(request);
    const operation = labelOf(op);
    this.checkBreaker(op);
    const body = op.method === 'post' && options.rawBody !== undefined ? options.rawBody : request.body;
    let raw: Awaited<ReturnType<typeof sendHttp>>;
    try {
      raw = await sendHttp({
        method: request.method,
        url: request.url,
        headers: request.headers,
        body,
        timeoutMs: options.timeoutMs ?? this.settings.timeoutMs,
        maxBytes: this.settings.maxBytes,
      });
    } catch (error) {
      if (error instanceof TransportError) this.broken(op, transportFailure(error, operation, curl));
      throw error;
    }
    const text = raw.body.toString('utf8');
    const contentType = raw.headers['content-type'];
    const response: ApiResponse = {
      operation,
      status: raw.status,
      headers: raw.headers,
      contentType,
      text,
      json: undefined,
      elapsedMs: raw.elapsedMs,
      request,
      curl,
      excerpt: excerpt(text),
    };
    if (!this.settings.disabledChecks.has('content-type-is-json') && !isJsonMediaType(contentType)) {
      this.broken(op, {
        check: 'content-type-is-json',
        operation,
        title: 'response is not labelled JSON',
        received: `status ${raw.status}, Content-Type ${show(contentType ?? null)}`,
        documented: 'application/json (every response of the interface is JSON)',
        excerpt: response.excerpt,
        curl,
      });
    }
    try {
      response.json = JSON.parse(text);
    } catch (error) {
      if (!this.settings.disabledChecks.has('body-is-json')) {
        this.broken(op, {
          check: 'body-is-json',
          operation,
          title: 'response body is not valid JSON',
          received: `status ${raw.status}, ${raw.body.length} bytes that do not parse (${(error as Error).message})`,
          documented: 'a JSON body',
          excerpt: response.excerpt,
          curl,
        });
      }
    }
    return response;
  }

  private validate(op: Operation, response: ApiResponse, intent: 'ok' | 'error'): void {
    if (this.settings.disabledChecks.has('response-matches-spec')) return;
    const result = validateResponse(op.operationId, response.status, response.contentType, response.json);
    if (!result.documented) {
      if (intent === 'error' && response.status >= 400 && response.status < 500) return;
      throw new CheckFailure({
        check: 'response-matches-spec',
        operation: response.operation,
        title: 'status not documented for this operation',
        received: `status ${response.status}`,
        documented:
          intent === 'error'
            ? 'a documented status, or any 4xx where the interface documents no error for the case'
            : 'a status the spec documents for this operation',
        excerpt: response.excerpt,
        curl: response.curl,
      });
    }
    if (!result.valid) {
      const [first, ...rest] = result.errors;
      throw new CheckFailure({
        check: 'response-matches-spec',
        operation: response.operation,
        title: `status ${response.status} body does not match the spec`,
        received: `${first ? `${first.message} (${first.keyword})` : 'invalid body'}${rest.length ? ` and ${rest.length} more error(s)` : ''}`,
        documented: first ? `schema ${first.schemaPath}` : 'the documented schema',
        pointer: first?.pointer ?? '',
        excerpt: response.excerpt,
        curl: response.curl,
      });
    }
  }
}

/** True for `application/json` and `application/<x>+json`, with any parameters. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/** How long to wait before retrying a 429: Retry-After, else the seconds in the message, capped. */
export function retryWaitMs(response: Pick<ApiResponse, 'headers' | 'text'>): number {
  const header = Number(response.headers['retry-after']);
  const fromMessage = /(\d+(?:\.\d+)?)\s*seconds?/i.exec(response.text);
  const seconds = Number.isFinite(header) && header >= 0 ? header : fromMessage ? Number(fromMessage[1]) : 1;
  return Math.min(Math.max(seconds * 1000, 200), MAX_RETRY_WAIT_MS);
}

function transportFailure(error: TransportError, operation: string, curl: string): Failure {
  const byProblem = {
    timeout: {
      check: 'responds-within-timeout',
      title: 'no complete response within the deadline',
      documented: 'a complete response within the per-request deadline (--timeout)',
    },
    connection: {
      check: 'connection-completes',
      title: 'connection failed before a complete response',
      documented: 'a complete HTTP response',
    },
    'too-large': {
      check: 'body-within-size-cap',
      title: 'response body larger than the cap',
      documented: 'a response body within the harness size cap',
    },
  } as const;
  const known = byProblem[error.problem];
  const status = error.status === undefined ? '' : `status ${error.status}, `;
  return { ...known, operation, received: `${status}${error.message}`, curl };
}
