import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type JsonObject, loadSpec } from '../../openapi/spec.ts';

const KGATE = fileURLToPath(new URL('../../bin/kgate.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'kgate-validate-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const examples = (loadSpec().components as JsonObject).examples as Record<string, { value: JsonObject }>;

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function kgate(args: string[], input?: string) {
  const run = spawnSync(process.execPath, [KGATE, 'validate', ...args], { encoding: 'utf8', input });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const brokenEvaluate = structuredClone(examples.EvaluateResponse?.value) as any;
brokenEvaluate.entities[1].Y = '2004';
delete brokenEvaluate.aborted;
/** An evaluate body as the real service sent it when nothing timed out: no aborted. */
const evaluateWithoutAborted = structuredClone(examples.EvaluateResponse?.value) as JsonObject;
delete evaluateWithoutAborted.aborted;

describe('kgate validate', () => {
  const cases = [
    {
      given: 'a spec example',
      args: [
        '--operation',
        'answerSearch',
        '--status',
        '200',
        file('answer.json', examples.AnswerSearchResponse?.value),
      ],
      want: { code: 0, stdout: /^valid: /, stderr: /^$/ },
    },
    {
      given: 'a spec example under --strict (nothing to warn about)',
      args: [
        '--operation',
        'answerSearch',
        '--status',
        '200',
        '--strict',
        file('answer-strict.json', examples.AnswerSearchResponse?.value),
      ],
      want: { code: 0, stdout: /^valid: [^\n]*\n$/, stderr: /^$/ },
    },
    {
      given: 'a broken evaluate body (the retyped Y fails; the missing aborted is a warning)',
      args: ['--operation', 'evaluateGet', '--status', '200', file('broken.json', brokenEvaluate)],
      want: {
        code: 1,
        stdout:
          /^invalid: [^\n]*\n {2}\/entities\/1\/Y {2}type: [^\n]*\n {2}warning: \/aborted is expected but missing \(interface 2\.2 [^\n]*\)\n$/,
        stderr: /^$/,
      },
    },
    {
      given: 'an evaluate body without aborted, as the real service answered',
      args: ['--operation', 'evaluateGet', '--status', '200', file('no-aborted.json', evaluateWithoutAborted)],
      want: {
        code: 0,
        stdout:
          /^valid with 1 warning\(s\): [^\n]*no-aborted\.json matches evaluateGet 200 [^\n]*\n {2}warning: \/aborted is expected but missing \([^\n]*real-payloads\/[^\n]*\)\n$/,
        stderr: /^$/,
      },
    },
    {
      given: 'the same body under --strict',
      args: [
        '--operation',
        'evaluateGet',
        '--status',
        '200',
        '--strict',
        file('no-aborted-strict.json', evaluateWithoutAborted),
      ],
      want: {
        code: 1,
        stdout:
          /^invalid under --strict: [^\n]* has 1 warning\(s\) against evaluateGet 200 [^\n]*\n {2}warning: \/aborted /,
        stderr: /^$/,
      },
    },
    {
      given: 'an undocumented status',
      args: ['--operation', 'similarityPost', '--status', '413', file('413.json', {})],
      want: { code: 1, stdout: /status 413 is not documented for similarityPost/, stderr: /^$/ },
    },
    {
      given: 'an unknown operationId',
      args: ['--operation', 'search', '--status', '200', file('x.json', {})],
      want: {
        code: 2,
        stdout: /^$/,
        stderr: /option --operation takes one of interpretGet, .*eventDocuments, got 'search' \(not one of them\)\n$/,
      },
    },
    {
      given: 'a status out of range',
      args: ['--operation', 'evaluateGet', '--status', '99', file('y.json', {})],
      want: {
        code: 2,
        stdout: /^$/,
        stderr: /option --status takes an HTTP status code from 100 to 599, got '99' \(out of range\)/,
      },
    },
    {
      given: 'an unknown option',
      args: ['--operation', 'evaluateGet', '--status', '200', '--lenient', file('z.json', {})],
      want: { code: 2, stdout: /^$/, stderr: /unknown option --lenient \(known options: [^)]*--strict/ },
    },
    {
      given: 'a file that is not JSON',
      args: ['--operation', 'evaluateGet', '--status', '200', file('text.json', '{"expr": ')],
      want: { code: 2, stdout: /^$/, stderr: /is not JSON/ },
    },
    {
      given: 'a missing file',
      args: ['--operation', 'evaluateGet', '--status', '200', join(dir, 'absent.json')],
      want: { code: 2, stdout: /^$/, stderr: /cannot read '.*absent\.json' \(ENOENT\)/ },
    },
    {
      given: 'no file',
      args: ['--operation', 'evaluateGet', '--status', '200'],
      want: { code: 2, stdout: /^$/, stderr: /takes exactly one file/ },
    },
  ];
  for (const { given, args, want } of cases) {
    test(given, () => {
      const run = kgate(args);
      assert.equal(run.code, want.code, run.stderr);
      assert.match(run.stdout, want.stdout);
      assert.match(run.stderr, want.stderr);
    });
  }

  test('--json prints one object with every error and warning and its pointer', () => {
    const run = kgate([
      '--operation',
      'evaluateGet',
      '--status',
      '200',
      '--json',
      file('broken2.json', brokenEvaluate),
    ]);
    assert.equal(run.code, 1, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.equal(lines.length, 1, 'one line');
    const output = JSON.parse(lines[0] as string);
    assert.deepEqual(
      { valid: output.valid, strict: output.strict, passed: output.passed },
      { valid: false, strict: false, passed: false },
      'verdict fields',
    );
    assert.deepEqual(
      output.errors.map((e: { pointer: string }) => e.pointer),
      ['/entities/1/Y'],
      'errors',
    );
    assert.deepEqual(
      output.warnings.map((w: { pointer: string; keyword: string }) => `${w.keyword} ${w.pointer}`),
      ['expected /aborted'],
      'warnings',
    );
  });

  const verdicts = [
    { given: [], want: { code: 0, valid: true, strict: false, passed: true } },
    { given: ['--strict'], want: { code: 1, valid: true, strict: true, passed: false } },
  ];
  for (const { given, want } of verdicts) {
    test(`${['--json', ...given].join(' ')} on a body with only warnings: exit ${want.code}`, () => {
      const path = file(`warned-${given.length}.json`, evaluateWithoutAborted);
      const run = kgate(['--operation', 'evaluatePost', '--status', '200', '--json', ...given, path]);
      assert.equal(run.code, want.code, run.stderr);
      const output = JSON.parse(run.stdout);
      assert.deepEqual(
        { code: run.code, valid: output.valid, strict: output.strict, passed: output.passed },
        want,
        'verdict fields',
      );
      assert.deepEqual(output.errors, [], 'no errors');
      assert.deepEqual(
        output.warnings.map((w: { pointer: string }) => w.pointer),
        ['/aborted'],
        'warnings',
      );
    });
  }

  test('reads standard input with -', () => {
    const run = kgate(['--operation', 'similarityGet', '--status', '200', '-'], '0.61436052678568842');
    assert.equal(run.code, 0, run.stderr);
  });
});
