import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FullConfig, FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { redactSecrets, registerSecret } from '../cli/redact.ts';
import { readEnv } from '../config/env.ts';
import { OPERATIONS } from '../openapi/spec.ts';
import { CHECKS } from './checks/index.ts';
import { excerpt, type Failure } from './failure.ts';
import { FAILURE_ATTACHMENT, WARNING_ANNOTATION } from './fixtures.ts';
import { readConformOptions } from './options.ts';
import { type RunSummary, renderSummary, summarise, type TestRecord } from './summary.ts';

/** File names the reporter writes into the report folder. */
export const SUMMARY_FILES = { markdown: 'summary.md', json: 'summary.json' } as const;

/**
 * Playwright reporter that turns test results into the operation x check matrix: writes
 * summary.md and summary.json, prints the Markdown at the end, and appends it to
 * $GITHUB_STEP_SUMMARY when that is set.
 */
export default class ConformanceReporter implements Reporter {
  private readonly records: TestRecord[] = [];
  private started = Date.now();

  onBegin(_config: FullConfig): void {
    this.started = Date.now();
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    registerKeys();
    const [, project = '', , operation = '', check = test.title] = test.titlePath();
    const status = result.status === 'passed' ? 'passed' : result.status === 'skipped' ? 'skipped' : 'failed';
    const attached = result.attachments.find((attachment) => attachment.name === FAILURE_ATTACHMENT && attachment.body);
    const reported = attached ? (JSON.parse(attached.body!.toString('utf8')) as Failure) : undefined;
    const warned = [...test.annotations, ...result.annotations].some((a) => a.type === WARNING_ANNOTATION);
    const record: TestRecord = { project, operation, check, status, durationMs: result.duration };
    if (status === 'failed') record.failure = reported ?? unexplained(operation, check, result);
    else if (warned && reported) record.warning = reported;
    if (status === 'skipped') {
      record.skipReason = [...result.annotations, ...test.annotations].find((a) => a.type === 'skip')?.description;
    }
    this.records.push(redactRecord(record));
  }

  onEnd(result: FullResult): void {
    const env = registerKeys();
    const options = readConformOptions();
    const targets = summarise(
      this.records,
      OPERATIONS.map((op) => op.label),
      CHECKS,
    );
    const failed =
      targets.some((target) => target.verdict === 'fail') || (result.status === 'failed' && this.records.length === 0);
    const run: RunSummary = {
      verdict: failed ? 'fail' : 'pass',
      exitCode: failed ? 1 : 0,
      baseUrl: options.sweep ? undefined : env.baseUrl,
      strict: options.strict,
      durationMs: Date.now() - this.started,
      targets,
    };
    const markdown = redactSecrets(renderSummary(run, CHECKS));
    mkdirSync(options.reportDir, { recursive: true });
    writeFileSync(join(options.reportDir, SUMMARY_FILES.markdown), `${markdown}\n`);
    writeFileSync(join(options.reportDir, SUMMARY_FILES.json), `${redactSecrets(JSON.stringify(run, null, 2))}\n`);
    if (!options.quiet) console.log(`\n${markdown}`);
    if (env.githubStepSummary && !options.sweep) appendFileSync(env.githubStepSummary, `${markdown}\n`);
  }

  printsToStdio(): boolean {
    return !readConformOptions().quiet;
  }
}

/** A failed test without a failure object (a bug, or Playwright's own test timeout): reported under the test's check. */
function unexplained(operation: string, check: string, result: TestResult): Failure {
  const message = result.error?.message ?? result.errors[0]?.message ?? `test ended with status ${result.status}`;
  return {
    check,
    operation,
    title: result.status === 'timedOut' ? 'test did not finish in time' : 'test ended with an unexpected error',
    received: excerpt(message.replace(/\u001b\[[0-9;]*m/g, ''), 400),
    documented: 'the check runs to completion and passes',
  };
}

/** Registers the run's keys (the global setup may have set them after this reporter started). */
function registerKeys() {
  const env = readEnv();
  for (const key of [env.key, env.keyUnsubscribed, env.keyExhausted]) registerSecret(key);
  return env;
}

function redactRecord(record: TestRecord): TestRecord {
  return JSON.parse(redactSecrets(JSON.stringify(record))) as TestRecord;
}
