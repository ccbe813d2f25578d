// The one place a conformance run's reports are written: summary.md, summary.json, junit.xml,
// tests.json and report.html, all from the same RunSummary, so that no report can disagree with
// another or with the verdict. Whatever produces a RunSummary (the Playwright reporter, a merge of
// shards) calls writeRunReports and gets every file.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { redactSecrets } from '../config/redact.ts';
import type { Check } from '../contracts/checks/registry.ts';
import { REPORT_HTML, renderPage } from '../page/page.ts';
import { ENVELOPE_FILE, type Envelope, envelopeSection, runEnvelope, writeEnvelope } from './envelope.ts';
import { renderJunit } from './junit.ts';
import { conformancePage, type PreviousRun, previousRun } from './report-page.ts';
import { RUN_FILE, type RunMeta } from './run-meta.ts';
import { type RunSummary, renderSummary, SUMMARY_FILES, type TestRecord } from './summary.ts';

/** Every file a conformance run writes into its report folder (Playwright's own reports are not among them). */
export const RUN_REPORT_FILES = {
  ...SUMMARY_FILES,
  html: REPORT_HTML,
  meta: RUN_FILE,
  envelope: ENVELOPE_FILE,
} as const;

/** What writeRunReports wrote. */
export interface WrittenReports {
  /** The Markdown summary (what the terminal and $GITHUB_STEP_SUMMARY show). */
  markdown: string;
  /** Absolute or relative paths, as `dir` was given, by file. */
  paths: Record<keyof typeof RUN_REPORT_FILES, string>;
}

/**
 * Writes the reports of a run into `dir` (default `run.reportDir`): summary.md, junit.xml,
 * tests.json (when the test records are given), run.json (when the run's metadata is given),
 * report.html and summary.json, each redacted; summary.json last, since its presence says the
 * reports are complete (runSuite and the action read it).
 * report.html compares the run with the previous one in the same reports folder, unless
 * `previous` says which (or `null`: none).
 */
export function writeRunReports(
  run: RunSummary,
  checks: readonly Check[],
  options: {
    dir?: string;
    records?: readonly TestRecord[];
    meta?: RunMeta;
    previous?: PreviousRun<RunSummary> | null;
    /** The run's envelope (default: measured from the records, when given; none for a sweep, whose run has no previous). */
    envelope?: Envelope | null;
  } = {},
): WrittenReports {
  const dir = options.dir ?? run.reportDir;
  if (!dir) throw new Error('writeRunReports: the run has no report folder');
  mkdirSync(dir, { recursive: true });
  const paths = Object.fromEntries(
    Object.entries(RUN_REPORT_FILES).map(([name, file]) => [name, join(dir, file)]),
  ) as WrittenReports['paths'];
  const previous =
    options.previous === null ? undefined : (options.previous ?? previousRun<RunSummary>(dir, SUMMARY_FILES.json));
  const markdown = redactSecrets(renderSummary(run, checks));
  writeFileSync(paths.markdown, `${markdown}\n`);
  writeFileSync(paths.junit, redactSecrets(renderJunit(run, checks)));
  if (options.records) writeFileSync(paths.tests, `${redactSecrets(JSON.stringify(options.records))}\n`);
  if (options.meta) writeFileSync(paths.meta, `${redactSecrets(JSON.stringify(options.meta, null, 2))}\n`);
  const envelope =
    options.envelope === null
      ? undefined
      : (options.envelope ??
        (options.records
          ? runEnvelope(run, options.records, dir, options.meta?.target ?? run.baseUrl ?? '')
          : undefined));
  if (envelope) writeEnvelope(dir, envelope);
  const page = conformancePage(run, checks, previous);
  if (envelope) {
    // The envelope's section goes before the notes.
    const notes = page.sections.findIndex((section) => section.id === 'notes');
    page.sections.splice(notes < 0 ? page.sections.length : notes, 0, envelopeSection(envelope));
    page.files = [...(page.files ?? []), ENVELOPE_FILE];
  }
  writeFileSync(paths.html, redactSecrets(renderPage(page)));
  writeFileSync(paths.json, `${redactSecrets(JSON.stringify(run, null, 2))}\n`);
  return { markdown, paths };
}
