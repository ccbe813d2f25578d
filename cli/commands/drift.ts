import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { readEnv } from '../../config/env.ts';
import { redactSecrets, registerSecret } from '../../config/redact.ts';
import { checkReachable, preflight } from '../../contracts/preflight.ts';
import { applyBaseline, type Baseline, groupByCause, readBaseline, writeBaseline } from '../../drift/findings.ts';
import { analyzeHar, HarFormatError } from '../../drift/har.ts';
import {
  appendRun,
  checkTarget,
  type History,
  HistoryError,
  historyChangeLines,
  historyReport,
  historyTarget,
  problemLine,
  readHistory,
} from '../../drift/history.ts';
import { historyCounts, renderHistoryHtml } from '../../drift/history-report.ts';
import { envelopeOfLive, type LiveResult, runLiveDrift, UnreachableError } from '../../drift/live.ts';
import { changeLines, changesPhrase, findingLine, newRunId, writeLiveReport } from '../../drift/report.ts';
import { diffSpecs, formatChange } from '../../drift/spec-diff.ts';
import { REPORT_HTML, renderPage } from '../../page/page.ts';
import { envelopeSection, writeEnvelope } from '../../reporting/envelope.ts';
import { previousRun } from '../../reporting/report-page.ts';
import {
  durationOption,
  EXIT,
  noPositionals,
  parseCommandArgs,
  stringOption,
  targetBaseUrl,
  UsageError,
} from '../args.ts';
import type { Command } from '../command.ts';
import { driftPage } from '../drift-page.ts';
import {
  applyNetwork,
  commandNetwork,
  embeddedNetwork,
  NETWORK_OPTIONS,
  NETWORK_USAGE,
  networkLine,
} from '../network.ts';
import { humanDuration, progressDisplay, timeLeft } from '../progress.ts';

const USAGE = `usage: kgate drift <live|spec|har|history> [options]

  kgate drift live [--base-url URL] [--baseline FILE] [--update-baseline] [--history FILE] [--timeout 10s] [--report-dir DIR] [--json]
                   [--proxy URL] [--ca-file FILE] [--client-cert FILE --client-key FILE]
      Sends a battery of requests (every operation; success and documented error cases) and
      compares every response with the spec. Without --base-url (or KGATE_BASE_URL) it starts the
      embedded reference server. The key comes from KGATE_KEY (KGATE_KEY_EXHAUSTED adds 403 cases).
      Findings with one cause (the same kind and JSON path on several operations and statuses) are
      one change with the places it touched; FAIL marks a change the baseline does not accept.
      --baseline FILE      findings listed in FILE are known; only new ones fail
      --update-baseline    write this run's findings to the --baseline FILE (exit 0)
      --history FILE       append this run's findings to the history FILE (JSON Lines, created if
                           missing) and report each finding as new, ongoing since, gone since or
                           flaky; the report folder gets history.html, a timeline per operation
      --timeout            per-request time limit (default 10s)
      --report-dir DIR     where <run-id>/report.html, drift.json and drift.md go (default reports/drift)
${NETWORK_USAGE.replace(/^ {2}/gm, '      ')}

  kgate drift spec OLD.yaml NEW.yaml [--json]
      Lists every difference between two specs and whether it breaks existing clients.

  kgate drift har FILE.har [--json]
      Validates recorded traffic against the spec and reports which operations and statuses it covered.

  kgate drift history FILE [--since DATE] [--html OUT] [--json]
      Prints the changes of a history file (written by drift live --history) as of its last run,
      each with its places: new, ongoing since, gone since, flaky; first and last seen, times seen.
      --since DATE         only the runs from DATE (YYYY-MM-DD or an ISO time, UTC) on
      --html OUT           also write the timeline page to OUT

  --json   print the result as one JSON object
exit codes: 0 no new drift / no breaking change / all exchanges valid, 1 otherwise, 2 bad usage or unreachable
target (or proxy), a refused proxy or TLS connection, a front server refusing every request`;

/** `kgate drift`: live target vs spec, spec vs spec, recorded HAR vs spec. */
export const command: Command = {
  usage: USAGE,
  async run(argv) {
    const [mode, ...rest] = argv;
    switch (mode) {
      case 'live':
        return runLive(rest);
      case 'spec':
        return runSpec(rest);
      case 'har':
        return runHar(rest);
      case 'history':
        return runHistory(rest);
      case undefined:
        throw new UsageError('kgate drift: needs a mode: live, spec, har or history (see kgate drift --help)');
      default:
        throw new UsageError(`kgate drift: unknown mode '${mode}' (modes: live, spec, har, history)`);
    }
  },
};

async function runLive(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    argv,
    {
      'base-url': { type: 'string' },
      baseline: { type: 'string' },
      'update-baseline': { type: 'boolean' },
      history: { type: 'string' },
      timeout: { type: 'string' },
      'report-dir': { type: 'string' },
      json: { type: 'boolean' },
      ...NETWORK_OPTIONS,
    },
    'drift live',
  );
  noPositionals(positionals, 'drift live');
  const env = readEnv();
  const baseUrl = targetBaseUrl(values, env.baseUrl);
  const baselineFile = stringOption(values, 'baseline');
  const update = values['update-baseline'] === true;
  const timeoutMs = durationOption(values, 'timeout', { minMs: 100, maxMs: 120_000 }, 10_000);
  const reportRoot = stringOption(values, 'report-dir') ?? join('reports', 'drift');
  if (update && !baselineFile) {
    throw new UsageError('kgate drift live: option --update-baseline needs --baseline FILE (the file to write)');
  }
  if (update && baselineFile && !existsSync(dirname(baselineFile))) {
    throw new UsageError(
      `kgate drift live: option --baseline: no such directory '${dirname(baselineFile)}' to write into`,
    );
  }
  let baseline: Baseline | undefined;
  if (baselineFile && !update) {
    if (!existsSync(baselineFile)) {
      throw new UsageError(
        `kgate drift live: option --baseline: no such file '${baselineFile}' (create it with --update-baseline)`,
      );
    }
    try {
      baseline = readBaseline(baselineFile);
    } catch (error) {
      throw new UsageError(`kgate drift live: option --baseline: ${(error as Error).message}`);
    }
  }
  if (baseUrl && !env.key) {
    throw new UsageError('kgate drift live: KGATE_KEY must hold a subscription key to run against a --base-url target');
  }
  const configured = commandNetwork(values, env, 'drift live');
  // A reference server kgate starts itself is reached directly, never through a proxy.
  const network = baseUrl ? configured : embeddedNetwork(configured);
  applyNetwork(network);
  const line = networkLine('drift live', network);
  if (line) console.error(redactSecrets(line));
  if (baseUrl) {
    try {
      await checkReachable(baseUrl);
    } catch (error) {
      console.error(redactSecrets(`kgate drift live: target ${baseUrl} is unreachable: ${(error as Error).message}`));
      return EXIT.usage;
    }
    const problem = await preflight(baseUrl, env.key);
    if (problem && problem.kind !== 'key') {
      console.error(redactSecrets(`kgate drift live: ${baseUrl}: ${problem.reason}`));
      return EXIT.usage;
    }
  }
  const historyFile = stringOption(values, 'history');
  let history: History | undefined;
  if (historyFile !== undefined) {
    if (historyFile.trim() === '' || !existsSync(dirname(historyFile)))
      throw new UsageError(
        `kgate drift live: option --history: no such directory '${dirname(historyFile)}' to keep the history in`,
      );
    try {
      history = readHistory(historyFile);
      checkTarget(history, historyTarget(baseUrl), historyFile);
    } catch (error) {
      if (error instanceof HistoryError) throw new UsageError(`kgate drift live: option --history: ${error.message}`);
      throw error;
    }
    for (const problem of history?.problems ?? [])
      console.error(`kgate drift live: ${problemLine(historyFile, problem)}`);
  }

  let result: LiveResult;
  let close: (() => Promise<void>) | undefined;
  try {
    let target: { url: string; keys: { full: string; exhausted?: string } };
    if (baseUrl) {
      target = { url: baseUrl, keys: { full: env.key!, ...(env.keyExhausted ? { exhausted: env.keyExhausted } : {}) } };
    } else {
      const { startReferenceServer } = await import('../../reference/index.ts');
      const server = await startReferenceServer({ quiet: true });
      close = () => server.close();
      target = { url: server.url, keys: { full: server.keys.full, exhausted: server.keys.exhausted } };
    }
    registerSecret(target.keys.full);
    registerSecret(target.keys.exhausted);
    const started = Date.now();
    const progress = { done: 0, total: 0, requests: 0 };
    const stopProgress = progressDisplay(
      () =>
        `kgate drift live: ${progress.done}/${progress.total || '?'} cases done, ${progress.requests} requests sent, ${humanDuration(Date.now() - started)} elapsed${timeLeft(Date.now() - started, progress.done, progress.total)}`,
    );
    try {
      result = await runLiveDrift({
        baseUrl: target.url,
        keys: target.keys,
        timeoutMs,
        baseline,
        network: network.description,
        ...(baseUrl ? {} : { envelopeTarget: 'embedded reference server' }),
        onProgress: (done, total, requests) => Object.assign(progress, { done, total, requests }),
      });
    } finally {
      stopProgress();
    }
  } catch (error) {
    if (error instanceof UnreachableError) {
      console.error(redactSecrets(`kgate drift live: ${error.message}`));
      return EXIT.usage;
    }
    throw error;
  } finally {
    await close?.();
  }

  const runId = newRunId();
  const runDir = join(reportRoot, runId);
  const previous = previousRun<LiveResult>(runDir, 'drift.json');
  let historyOut: ReturnType<typeof historyReport> | undefined;
  if (historyFile !== undefined) {
    const problems = history?.problems ?? [];
    const written = appendRun(historyFile, history, historyTarget(baseUrl), result, runId);
    historyOut = historyReport(historyFile, written, problems);
  }
  const { html: timeline, ...paths } = writeLiveReport(result, runDir, historyOut);
  const html = join(runDir, REPORT_HTML);
  const page = driftPage(result, previous);
  const envelope = envelopeOfLive(result);
  if (envelope) {
    // How the envelope moved since the history's previous run: drift of its own kind, reported, not failing the run.
    if (historyOut?.envelopeChanges) envelope.changes = historyOut.envelopeChanges;
    writeEnvelope(runDir, envelope);
    page.sections.push(envelopeSection(envelope));
  }
  writeFileSync(html, redactSecrets(renderPage(page)));
  let baselineWritten: string | undefined;
  if (update && baselineFile) {
    let written: Baseline;
    try {
      written = writeBaseline(baselineFile, result.findings);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new UsageError(`kgate drift live: option --baseline: cannot write '${baselineFile}' (${reason})`);
    }
    applyBaseline(result.findings, written);
    baselineWritten = baselineFile;
  }
  if (values.json === true) {
    console.log(
      redactSecrets(
        JSON.stringify({
          ...result,
          runId,
          report: { ...paths, html, ...(timeline ? { timeline } : {}) },
          baselineWritten,
          ...(historyOut ? { history: historyOut } : {}),
        }),
      ),
    );
  } else {
    const say = (line: string) => console.log(redactSecrets(line));
    for (const change of groupByCause(result.findings)) for (const line of changeLines(change)) say(line);
    if (historyOut) {
      for (const change of historyOut.changes)
        for (const [index, line] of historyChangeLines(change).entries()) say(index === 0 ? `history: ${line}` : line);
      for (const change of historyOut.envelopeChanges ?? []) say(`history: envelope changed: ${change.text}`);
      say(
        `drift history: ${historyCounts(historyOut)} over ${historyOut.runs.length} run(s) in ${historyFile} (timeline: ${timeline})`,
      );
    }
    for (const item of result.cases.filter((entry) => entry.error && !entry.skipped)) {
      say(`no answer: ${item.name}: ${item.error}`);
    }
    const { summary } = result;
    const verdict = update || summary.new === 0 ? 'PASS' : 'FAIL';
    say(
      `kgate drift live: ${verdict}: ${summary.findings === 0 ? 'no drift' : changesPhrase(result)}; ${summary.requests} requests` +
        (summary.resolved.length > 0 ? `, ${summary.resolved.length} baseline findings no longer seen` : '') +
        (summary.transportErrors > 0 ? `, ${summary.transportErrors} requests without an answer` : '') +
        (summary.skipped > 0 ? `, ${summary.skipped} cases skipped after repeated transport failures` : ''),
    );
    if (baselineWritten) say(`baseline written: ${baselineWritten} (${result.findings.length} place(s) of drift)`);
    say(`report: ${html} (also ${paths.markdown})`);
  }
  if (update) return EXIT.ok;
  return result.summary.new > 0 ? EXIT.failed : EXIT.ok;
}

/** Reads `--since`: a UTC date or ISO time, returned as an ISO time to compare run times with. */
function sinceOption(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const text = raw.trim();
  const time = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(time))
    throw new UsageError(`kgate drift history: option --since takes a date (YYYY-MM-DD) or an ISO time, got '${raw}'`);
  return new Date(time).toISOString();
}

async function runHistory(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    argv,
    { since: { type: 'string' }, html: { type: 'string' }, json: { type: 'boolean' } },
    'drift history',
  );
  if (positionals.length !== 1)
    throw new UsageError(`kgate drift history: takes exactly one history file; got ${positionals.length}`);
  const file = positionals[0] as string;
  const since = sinceOption(stringOption(values, 'since'));
  const html = stringOption(values, 'html');
  if (html !== undefined && (html.trim() === '' || !existsSync(dirname(html))))
    throw new UsageError(`kgate drift history: option --html: no such directory '${dirname(html)}' to write into`);
  if (!existsSync(file)) throw new UsageError(`kgate drift history: no such file '${file}'`);
  let history: History | undefined;
  try {
    history = readHistory(file);
  } catch (error) {
    if (error instanceof HistoryError) throw new UsageError(`kgate drift history: ${error.message}`);
    throw error;
  }
  if (!history) throw new UsageError(`kgate drift history: '${file}' is empty (kgate drift live --history writes it)`);
  for (const problem of history.problems) console.error(`kgate drift history: ${problemLine(file, problem)}`);
  const report = historyReport(file, history, history.problems, since);
  if (html !== undefined) writeFileSync(html, redactSecrets(renderHistoryHtml(report)));
  if (values.json === true) {
    console.log(redactSecrets(JSON.stringify({ kind: 'drift-history', ...(since ? { since } : {}), ...report })));
    return EXIT.ok;
  }
  for (const change of report.changes) for (const line of historyChangeLines(change)) console.log(redactSecrets(line));
  console.log(
    redactSecrets(
      `kgate drift history: ${report.target}, ${report.runs.length} run(s)${since ? ` since ${since}` : ''}: ${historyCounts(report)}${html ? ` (timeline: ${html})` : ''}`,
    ),
  );
  return EXIT.ok;
}

function readDocument(file: string, command: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`kgate ${command}: cannot read ${what} '${file}' (${reason})`);
  }
  try {
    return parse(text);
  } catch (error) {
    const first = ((error as Error).message.split('\n')[0] ?? '').trim();
    throw new UsageError(`kgate ${command}: ${what} '${file}' is not YAML or JSON (${first})`);
  }
}

async function runSpec(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { json: { type: 'boolean' } }, 'drift spec');
  if (positionals.length !== 2) {
    throw new UsageError(`kgate drift spec: takes two spec files, OLD and NEW; got ${positionals.length}`);
  }
  const [oldFile, newFile] = positionals as [string, string];
  const oldDoc = readDocument(oldFile, 'drift spec', 'OLD spec');
  const newDoc = readDocument(newFile, 'drift spec', 'NEW spec');
  for (const [file, doc] of [
    [oldFile, oldDoc],
    [newFile, newDoc],
  ] as const) {
    const record = doc as Record<string, unknown> | null;
    if (typeof record !== 'object' || record === null || typeof record.openapi !== 'string') {
      throw new UsageError(`kgate drift spec: '${file}' is not an OpenAPI document (no openapi version field)`);
    }
  }
  const changes = diffSpecs(oldDoc, newDoc);
  const breaking = changes.filter((change) => change.breaking).length;
  if (values.json === true) {
    console.log(
      JSON.stringify({
        kind: 'drift-spec',
        old: oldFile,
        new: newFile,
        summary: { changes: changes.length, breaking, nonBreaking: changes.length - breaking },
        changes,
      }),
    );
  } else {
    const ordered = [...changes.filter((change) => change.breaking), ...changes.filter((change) => !change.breaking)];
    for (const change of ordered) console.log(formatChange(change));
    console.log(`drift spec: ${changes.length} changes, ${breaking} breaking for existing clients`);
  }
  return breaking > 0 ? EXIT.failed : EXIT.ok;
}

async function runHar(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { json: { type: 'boolean' } }, 'drift har');
  if (positionals.length !== 1) {
    throw new UsageError(`kgate drift har: takes exactly one HAR file; got ${positionals.length}`);
  }
  const file = positionals[0] as string;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`kgate drift har: cannot read '${file}' (${reason})`);
  }
  let har: unknown;
  try {
    har = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`kgate drift har: '${file}' is not JSON (${(error as Error).message})`);
  }
  let result: ReturnType<typeof analyzeHar>;
  try {
    result = analyzeHar(har, file);
  } catch (error) {
    if (error instanceof HarFormatError) throw new UsageError(`kgate drift har: ${error.message}`);
    throw error;
  }
  if (values.json === true) {
    console.log(redactSecrets(JSON.stringify(result)));
  } else {
    for (const exchange of result.exchanges.filter((item) => !item.valid)) {
      const first = `INVALID entry ${exchange.index} ${exchange.method} ${exchange.target} -> ${exchange.status}`;
      console.log(redactSecrets(`${first}: ${exchange.errors.join('; ')}`));
    }
    for (const exchange of result.exchanges.filter((item) => item.requestErrors)) {
      const first = `note: entry ${exchange.index} ${exchange.method} ${exchange.target}: request breaks the spec`;
      console.log(redactSecrets(`${first}: ${exchange.requestErrors?.join('; ')}`));
    }
    for (const finding of result.findings) console.log(redactSecrets(`drift ${findingLine(finding).slice(6)}`));
    console.log('coverage:');
    for (const item of result.coverage) {
      const seen = Object.entries(item.statuses)
        .map(([status, count]) => `${status} x${count}`)
        .join(', ');
      const missing = item.notSeen.length > 0 ? `; never: ${item.notSeen.join(', ')}` : '';
      console.log(`  ${item.operation}: ${seen || 'not exercised'}${missing}`);
    }
    const { summary } = result;
    console.log(
      `drift har: ${summary.entries} entries, ${summary.matched} matched an operation, ${summary.invalid} invalid; ` +
        `${summary.operationsTouched} operations exercised, ${summary.operationsUntouched} never touched`,
    );
  }
  return result.summary.invalid > 0 ? EXIT.failed : EXIT.ok;
}
