// Runs Schemathesis (../shared/tools/schemathesis/st, a peer kgate's users know) against a target
// with the project's spec, and reads its failures from the report it prints. Used by the spec's
// test (openapi/schemathesis.test.ts) and the peers bench (bench/peers.bench.ts).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, runProcess } from './run-process.ts';

/** Where the machine keeps Schemathesis 4.9.5 (outside the repository). */
export const SCHEMATHESIS = join(ROOT, '..', 'shared', 'tools', 'schemathesis', 'st');

/**
 * Settings that fit the interface: a request without the key is answered 401 (interface 5), not
 * the 406 Schemathesis expects by default.
 */
export const SCHEMATHESIS_CONFIG = `[checks.missing_required_header]
expected-statuses = [401]
`;

/** One failure Schemathesis reported. */
export interface PeerFailure {
  /** `GET /academic/v1.0/evaluate` */
  operation: string;
  /** Its check's title, e.g. `API rejected schema-compliant request`. */
  title: string;
  /** The status of the answer it judged, when shown. */
  status?: number;
  /** The start of the answer's body. */
  body: string;
  /** Its curl line (Schemathesis filters the key). */
  curl: string;
}

/** What one Schemathesis run reported. */
export interface PeerRun {
  exitCode: number | null;
  failures: PeerFailure[];
  /** Test cases generated, as its summary says. */
  cases: number;
  durationMs: number;
  output: string;
}

/**
 * Reads the failures of Schemathesis's text report: a section per operation, a `- title` per
 * failure; `basePath` (a target below a path prefix, such as a fault) is cut from the operations.
 */
export function parseSchemathesis(output: string, basePath = ''): { failures: PeerFailure[]; cases: number } {
  const failures: PeerFailure[] = [];
  let operation = '';
  let current: PeerFailure | undefined;
  for (const line of output.split('\n')) {
    const section = /^_{3,} (GET|POST|PUT|DELETE|PATCH) (\S+) _{3,}$/.exec(line.trim());
    if (section) {
      operation = `${section[1]} ${section[2]}`;
      continue;
    }
    if (/^={3,} SUMMARY/.test(line.trim())) break;
    const title = /^- (.+)$/.exec(line);
    if (title && operation) {
      current = { operation, title: title[1]!.trim(), body: '', curl: '' };
      failures.push(current);
      continue;
    }
    const status = /^\[(\d{3})\]/.exec(line.trim());
    if (status && current) {
      // A status line closes the failures listed since the last one: they share the answer.
      for (const failure of failures.filter((f) => f.operation === operation && f.status === undefined))
        failure.status = Number(status[1]);
      continue;
    }
    const body = /^\s+`(.*)`$/.exec(line);
    if (body && current)
      for (const failure of failures.filter((f) => f.operation === operation && f.body === ''))
        failure.body = body[1]!.slice(0, 300);
    if (line.trim().startsWith('curl ') && current)
      for (const failure of failures.filter((f) => f.operation === operation && f.curl === '')) {
        failure.curl = line.trim();
        // The request says which operation answered (a stateful link may list it under another).
        const sent = /curl -X (\w+) .*?'?https?:\/\/[^/\s']+(\/[^?\s']*)/.exec(failure.curl);
        const path = sent?.[2]?.startsWith(basePath) ? sent[2].slice(basePath.length) : sent?.[2];
        if (sent && path) failure.operation = `${sent[1]} ${templated(path)}`;
      }
  }
  const cases = Number(/(\d+) generated/.exec(output)?.[1] ?? 0);
  return { failures, cases };
}

/**
 * Schemathesis failures against the clean reference server that are not the spec's fault, each
 * with the reason. Anything else (a valid request by the spec that the server rejects for a reason
 * the spec could state, an answer that violates the spec's schema, a 5xx) fails the test.
 */
export const NOT_THE_SPECS_FAULT: { title: string; when(failure: PeerFailure): boolean; why: string }[] = [
  {
    title: 'API accepted schema-violating request',
    when: () => true,
    why: 'the server is lenient where the interface does not call a request invalid: an empty optional value counts as absent, unknown parameters are ignored (kgate sends such requests as edge cases)',
  },
  {
    title: 'Undocumented HTTP status code',
    when: (failure) => failure.operation.includes('/eventknowledge/') && failure.status === 400,
    why: 'the interface documents no 400 for event knowledge (7.4 shows only 404); kgate accepts any 4xx there',
  },
  {
    title: 'API rejected schema-compliant request',
    when: (failure) => /\b(evaluate|calchistogram)$/.test(failure.operation) && /parameter: expr/.test(failure.body),
    why: 'the expression grammar of facts.md cannot be written as a JSON Schema: a string the spec allows may not parse',
  },
  {
    title: 'API rejected schema-compliant request',
    when: (failure) => /parameter: model\b|parameter mkt\b.*not a supported market/i.test(failure.body),
    why: 'the models and markets a deployment supports are not shown (interface 4.3, 4.9); the reference server knows latest and a few markets',
  },
  {
    title: 'API rejected schema-compliant request',
    when: (failure) => /control character|parameter: (query|q|wikipediaid|s1|s2)\b/.test(failure.body),
    why: 'a free text holding control characters: what a server does with it is not shown (kgate sends it as an edge case)',
  },
];

/** The reason a failure is not the spec's fault, if it is one of NOT_THE_SPECS_FAULT. */
export function excuseOf(failure: PeerFailure): string | undefined {
  return NOT_THE_SPECS_FAULT.find((rule) => rule.title === failure.title && rule.when(failure))?.why;
}

/** A request path with its event id put back as the spec's template. */
function templated(path: string): string {
  return path.replace(/\/events\/[^/]+\/documents$/, '/events/{event_id}/documents');
}

/** Runs `st run` with the spec against `baseUrl`: `examples` cases per operation, a fixed seed. */
export async function runSchemathesis(settings: {
  baseUrl: string;
  key: string;
  examples: number;
  seed?: number;
  timeoutMs?: number;
}): Promise<PeerRun> {
  const dir = mkdtempSync(join(tmpdir(), 'kgate-st-'));
  try {
    const config = join(dir, 'schemathesis.toml');
    writeFileSync(config, SCHEMATHESIS_CONFIG);
    const started = performance.now();
    const result = await runProcess(
      SCHEMATHESIS,
      [
        '--config-file',
        config,
        'run',
        join(ROOT, 'openapi', 'openapi.yaml'),
        '-u',
        settings.baseUrl,
        '-H',
        `Ocp-Apim-Subscription-Key: ${settings.key}`,
        '-n',
        String(settings.examples),
        '--seed',
        String(settings.seed ?? 1),
        '-w',
        '2',
        '--report-dir',
        join(dir, 'report'),
        '--no-color',
      ],
      { cwd: dir, timeoutMs: settings.timeoutMs ?? 300_000 },
    );
    const output = `${result.stdout}\n${result.stderr}`;
    const basePath = new URL(settings.baseUrl).pathname.replace(/\/+$/, '');
    return {
      exitCode: result.code,
      ...parseSchemathesis(output, basePath),
      durationMs: performance.now() - started,
      output,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether Schemathesis is on this machine. */
export function schemathesisPresent(): boolean {
  return existsSync(SCHEMATHESIS);
}
