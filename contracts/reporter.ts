import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FullConfig, FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { readEnv } from '../config/env.ts';
import { redactSecrets, registerSecret } from '../config/redact.ts';
import { OPERATIONS } from '../openapi/spec.ts';
import { CHECKS } from './checks/index.ts';
import { excerpt, type Failure } from './failure.ts';
import { FAILURE_ATTACHMENT, RECORDED_FAILURE_ANNOTATION, WARNING_ANNOTATION } from './fixtures.ts';
import { readConformOptions } from './options.ts';
import { type RunSummary, renderSummary, SUMMARY_FILES, summarise, type TestRecord } from './summary.ts';

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
    // titlePath: '', project, file, [sweep target,] operation, check id.
    const [, project = '', , ...rest] = test.titlePath();
    const check = rest.pop() ?? test.title;
    const operation = rest.pop() ?? '';
    const target = rest[0] ?? project;
    const annotations = [...test.annotations, ...result.annotations];
    const recorded = annotations.some((a) => a.type === RECORDED_FAILURE_ANNOTATION);
    const status =
      result.status === 'skipped' ? 'skipped' : result.status === 'passed' && !recorded ? 'passed' : 'failed';
    const attached = result.attachments.find((attachment) => attachment.name === FAILURE_ATTACHMENT && attachment.body);
    const reported = attached ? (JSON.parse(attached.body!.toString('utf8')) as Failure) : undefined;
    const warned = annotations.some((a) => a.type === WARNING_ANNOTATION);
    const record: TestRecord = { project: target, operation, check, status, durationMs: result.duration };
    if (status === 'failed') record.failure = reported ?? unexplained(operation, check, result);
    else if (warned && reported) record.warning = reported;
    if (status === 'skipped') {
      record.skipReason = annotations.find((a) => a.type === 'skip')?.description;
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
    if (!options.quiet && this.records.length > 0) console.log(`\n${markdown}`);
    if (env.githubStepSummary && !options.sweep && this.records.length > 0)
      appendFileSync(env.githubStepSummary, `${markdown}\n`);
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
