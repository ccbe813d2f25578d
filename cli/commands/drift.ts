import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parse } from 'yaml';
import { didYouMean } from '../../config/near-miss.ts';
import { redactSecrets } from '../../config/redact.ts';
import { applyBaseline, type Baseline, groupByCause, readBaseline, writeBaseline } from '../../drift/findings.ts';
import { analyzeHar } from '../../drift/har.ts';
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
import { envelopeOfLive, type LiveResult, QuotaRanOut, runLiveDrift, UnreachableError } from '../../drift/live.ts';
import { changeLines, changesPhrase, findingLine, writeLiveReport } from '../../drift/report.ts';
import { diffSpecs, formatChange } from '../../drift/spec-diff.ts';
import { HarFileError, readHarFile } from '../../http/har.ts';
import { REPORT_HTML, renderPage } from '../../page/page.ts';
import { envelopeSection, writeEnvelope } from '../../reporting/envelope.ts';
import { listsFindings, previousRun } from '../../reporting/report-page.ts';
import { isRunId, newRunId } from '../../reporting/run-dir.ts';
import {
  EXIT,
  noPositionals,
  option,
  type ParsedArgs,
  parseCommandArgs,
  RuleBroken,
  TargetError,
  UsageError,
} from '../door/args.ts';
import type { Command } from '../door/command.ts';
import { type Door, openDoor } from '../door/door.ts';
import { NETWORK_OPTIONS, NETWORK_USAGE } from '../door/network.ts';
import { JSON_USAGE, printJson } from '../door/output.ts';
import { humanDuration, progressDisplay, timeLeft } from '../door/progress.ts';
import { optionUsage, sharedOptions } from '../door/vocabulary.ts';
import { driftPage } from './drift-page.ts';

const EXIT_USAGE = `exit codes: 0 no new drift / no breaking change / all exchanges valid, 1 otherwise, 2 bad usage, a
target, proxy, key or base URL the preflight refused, or a battery that got no answer; 130 or 143
when stopped by SIGINT or SIGTERM`;

const LIVE_USAGE = `usage: kgate drift live [--base-url URL] [--baseline FILE] [--update-baseline] [--history FILE]
                        [--timeout D] [--max-rps R] [--max-duration D] [--config FILE] [--report-dir DIR]
                        [--json] [--proxy URL] [--ca-file FILE] [--client-cert FILE --client-key FILE]

Sends a battery of requests (every operation; success and documented error cases) and compares every
response with the spec. With nothing naming a target it starts the embedded reference server. The
key comes from KGATE_KEY (or the variable keyVariables.full names; KGATE_KEY_EXHAUSTED adds 403
cases). Findings with one cause (the same kind and JSON path on several operations and statuses)
are one change with the places it touched; FAIL marks a change the baseline does not accept.

${optionUsage(18, [
  ['base-url'],
  ['baseline', 'findings listed in this file are known; only new ones fail'],
  ['update-baseline', "write this run's findings to the --baseline file (exit 0)"],
  [
    'history',
    "append this run's findings to this history file (JSON Lines, created if missing) and report each finding as new, ongoing since, gone since or flaky; the report folder gets history.html, a timeline per operation",
  ],
  ['timeout', undefined, 'default 10s'],
  ['max-rps'],
  ['max-duration', undefined, 'default 2m: the cases left when it runs out are skipped'],
  ['config'],
  ['report-dir', undefined, 'report.html, drift.json and drift.md go there'],
  [
    'json',
    undefined,
    'the result (drift.json) after "command", "verdict" and "exitCode", with "runId" and "report"; a stop too',
  ],
])}
${JSON_USAGE}
${NETWORK_USAGE}

${EXIT_USAGE}`;

const SPEC_USAGE = `usage: kgate drift spec OLD.yaml NEW.yaml [--json]

Lists every difference between two specs and whether it breaks existing clients.

  --json   print one JSON object: { old, new, summary, changes } after "command", "verdict" and
           "exitCode"; a stop (bad usage, an unreadable spec) too
${JSON_USAGE}

exit codes: 0 no breaking change, 1 a change breaks existing clients, 2 bad usage`;

const HAR_USAGE = `usage: kgate drift har FILE.har [--json]

Validates recorded traffic against the spec and reports which operations and statuses it covered.

  --json   print one JSON object: { exchanges, findings, coverage, summary } after "command",
           "verdict" and "exitCode"; a stop (bad usage, a file that is not HAR) too
${JSON_USAGE}

exit codes: 0 every exchange valid, 1 an exchange breaks the spec, 2 bad usage`;

const HISTORY_USAGE = `usage: kgate drift history FILE [--since DATE] [--html OUT] [--json]

Prints the changes of a history file (written by drift live --history) as of its last run, each
with its places: new, ongoing since, gone since, flaky; first and last seen, times seen.

  --since DATE   only the runs from DATE (YYYY-MM-DD or an ISO time, UTC) on
  --html OUT     also write the timeline page to OUT
  --json         print one JSON object: the history report after "command", "verdict" and
                 "exitCode"; a stop (bad usage, an unreadable history) too
${JSON_USAGE}

exit codes: 0 printed, 2 bad usage or an unreadable history file`;

const USAGE = `usage: kgate drift <live|spec|har|history> [options]

  kgate drift live [--base-url URL] [--baseline FILE] [--update-baseline] [--history FILE]
                   [--timeout D] [--report-dir DIR] [--json] [--proxy URL] [--ca-file FILE] ...
      compares a live target's answers with the spec
  kgate drift spec OLD.yaml NEW.yaml [--json]
      lists every difference between two specs and whether it breaks existing clients
  kgate drift har FILE.har [--json]
      validates recorded traffic against the spec, with the operations and statuses it covered
  kgate drift history FILE [--since DATE] [--html OUT] [--json]
      prints the changes of a history file (drift live --history) as of its last run

kgate drift <mode> --help tells each mode's options.
${EXIT_USAGE}`;

/** The options of `kgate drift live`. */
const LIVE_OPTIONS = {
  ...sharedOptions('base-url'),
  baseline: option.path('file'),
  'update-baseline': option.flag(),
  history: option.path('file'),
  ...sharedOptions('timeout', 'max-rps', 'max-duration', 'config', 'report-dir', 'json'),
  ...NETWORK_OPTIONS,
};

/** The options of `kgate drift spec` and `kgate drift har`. */
const JSON_ONLY = { json: option.flag() };

/** The options of `kgate drift history`. */
const HISTORY_OPTIONS = {
  since: option.text('a date (YYYY-MM-DD) or an ISO time, UTC', 'yesterday', (raw) => sinceOption(raw)),
  html: option.path('file'),
  json: option.flag(),
};

const SUBCOMMANDS = {
  live: { usage: LIVE_USAGE, options: LIVE_OPTIONS },
  spec: { usage: SPEC_USAGE, options: JSON_ONLY },
  har: { usage: HAR_USAGE, options: JSON_ONLY },
  history: { usage: HISTORY_USAGE, options: HISTORY_OPTIONS },
};
const SIBLINGS = {
  'drift live': LIVE_OPTIONS,
  'drift spec': JSON_ONLY,
  'drift har': JSON_ONLY,
  'drift history': HISTORY_OPTIONS,
};

/** `kgate drift`: live target vs spec, spec vs spec, recorded HAR vs spec. */
export const command: Command = {
  usage: USAGE,
  subcommands: SUBCOMMANDS,
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
        throw new UsageError('needs a mode: live, spec, har or history (see kgate drift --help)', {
          command: 'drift',
          rule: 'takes a mode: live, spec, har or history',
        });
      default: {
        const near = didYouMean(mode, Object.keys(SUBCOMMANDS));
        throw new UsageError(`unknown mode '${mode}' (${near ? `${near} ` : ''}modes: live, spec, har, history)`, {
          command: 'drift',
          argument: mode,
          rule: 'takes a mode: live, spec, har or history',
        });
      }
    }
  },
};

async function runLive(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, LIVE_OPTIONS, 'drift live', SIBLINGS);
  noPositionals(parsed.positionals, 'drift live');
  const given = parsed.options;
  const door = openDoor({ command: 'drift live', kind: 'drift' }, parsed);
  try {
    return await driftLive(door, given);
  } finally {
    await door.close();
  }
}

async function driftLive(door: Door, given: ParsedArgs<typeof LIVE_OPTIONS>['options']): Promise<number> {
  const baseUrl = door.target.url;
  const baselineFile = given.baseline;
  const update = given['update-baseline'] === true;
  const timeoutMs = door.limits.timeoutMs ?? 10_000;
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
  const historyFile = given.history;
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

  const target = await door.enter({
    embedded: async () => {
      const { startReferenceServer } = await import('../../reference/index.ts');
      const server = await startReferenceServer({ quiet: true });
      return {
        baseUrl: server.url,
        keys: { full: server.keys.full, exhausted: server.keys.exhausted },
        close: () => server.close(),
      };
    },
  });
  let result: LiveResult;
  try {
    const started = Date.now();
    const progress = { done: 0, total: 0, requests: 0 };
    const stopProgress = progressDisplay(
      () =>
        `kgate drift live: ${progress.done}/${progress.total || '?'} cases done, ${progress.requests} requests sent, ${humanDuration(Date.now() - started)} elapsed${timeLeft(Date.now() - started, progress.done, progress.total)}`,
    );
    try {
      result = await runLiveDrift({
        baseUrl: target.baseUrl,
        keys: {
          full: target.keys.full!,
          ...(target.keys.exhausted ? { exhausted: target.keys.exhausted } : {}),
        },
        timeoutMs,
        ...(door.limits.maxDurationMs ? { deadlineMs: door.limits.maxDurationMs } : {}),
        ...(door.limits.maxRps ? { maxRps: door.limits.maxRps } : {}),
        baseline,
        network: door.network.description,
        ...(baseUrl ? {} : { envelopeTarget: 'embedded reference server' }),
        onProgress: (done, total, requests) => Object.assign(progress, { done, total, requests }),
      });
    } finally {
      stopProgress();
    }
  } catch (error) {
    if (error instanceof UnreachableError)
      throw new TargetError(error.message, { command: 'drift live', option: '--base-url' });
    if (error instanceof QuotaRanOut)
      throw new TargetError(error.message, { command: 'drift live', variable: 'KGATE_KEY' });
    throw error;
  }

  const runDir = door.reportDir!;
  const runId = isRunId(basename(runDir)) ? basename(runDir) : newRunId();
  result.verdict = update || result.summary.new === 0 ? 'pass' : 'fail';
  // Only a run that listed its findings is compared with (a file of another shape is passed over).
  const previous = previousRun(runDir, 'drift.json', listsFindings<LiveResult>);
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
  const code = update || result.summary.new === 0 ? EXIT.ok : EXIT.failed;
  if (given.json === true) {
    printJson('drift live', code, {
      ...result,
      runId,
      reportDir: runDir,
      report: { ...paths, html, ...(timeline ? { timeline } : {}) },
      baselineWritten,
      ...(historyOut ? { history: historyOut } : {}),
    });
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
  return code;
}

/** Reads `--since`: a UTC date or ISO time, returned as an ISO time to compare run times with; throws RuleBroken. */
function sinceOption(raw: string): string {
  const text = raw.trim();
  const time = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(time)) throw new RuleBroken('not a date');
  return new Date(time).toISOString();
}

async function runHistory(argv: string[]): Promise<number> {
  const { positionals, options: given } = parseCommandArgs(argv, HISTORY_OPTIONS, 'drift history', SIBLINGS);
  if (positionals.length !== 1)
    throw new UsageError(`kgate drift history: takes exactly one history file; got ${positionals.length}`, {
      rule: 'takes one history file',
    });
  const file = positionals[0] as string;
  const since = given.since;
  const html = given.html;
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
  if (given.json === true) {
    printJson('drift history', EXIT.ok, { kind: 'drift-history', ...(since ? { since } : {}), ...report });
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
  const { positionals, options: given } = parseCommandArgs(argv, JSON_ONLY, 'drift spec', SIBLINGS);
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
  if (given.json === true) {
    printJson('drift spec', breaking > 0 ? EXIT.failed : EXIT.ok, {
      kind: 'drift-spec',
      old: oldFile,
      new: newFile,
      summary: { changes: changes.length, breaking, nonBreaking: changes.length - breaking },
      changes,
    });
  } else {
    const ordered = [...changes.filter((change) => change.breaking), ...changes.filter((change) => !change.breaking)];
    for (const change of ordered) console.log(formatChange(change));
    console.log(`drift spec: ${changes.length} changes, ${breaking} breaking for existing clients`);
  }
  return breaking > 0 ? EXIT.failed : EXIT.ok;
}

async function runHar(argv: string[]): Promise<number> {
  const { positionals, options: given } = parseCommandArgs(argv, JSON_ONLY, 'drift har', SIBLINGS);
  if (positionals.length !== 1) {
    throw new UsageError(`kgate drift har: takes exactly one HAR file; got ${positionals.length}`);
  }
  const file = positionals[0] as string;
  let har: unknown;
  try {
    har = readHarFile(file);
  } catch (error) {
    if (error instanceof HarFileError) throw new UsageError(`kgate drift har: ${error.message}`);
    throw error;
  }
  const result = analyzeHar(har, file);
  if (given.json === true) {
    printJson('drift har', result.summary.invalid > 0 ? EXIT.failed : EXIT.ok, result);
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
