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
      given: 'a broken evaluate body',
      args: ['--operation', 'evaluateGet', '--status', '200', file('broken.json', brokenEvaluate)],
      want: {
        code: 1,
        stdout: /^invalid: (?=[\s\S]*\n {2}\/entities\/1\/Y {2}type: )/,
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
        stderr: /option --operation takes one of interpretGet, .*eventDocuments; got 'search'\n$/,
      },
    },
    {
      given: 'a status out of range',
      args: ['--operation', 'evaluateGet', '--status', '99', file('y.json', {})],
      want: { code: 2, stdout: /^$/, stderr: /option --status takes a whole number from 100 to 599, got '99'/ },
    },
    {
      given: 'an unknown option',
      args: ['--operation', 'evaluateGet', '--status', '200', '--strict', file('z.json', {})],
      want: { code: 2, stdout: /^$/, stderr: /unknown option --strict/ },
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

  test('--json prints one object with every error and its pointer', () => {
    const run = kgate([
      '--operation',
      'evaluateGet',
      '--status',
      '200',
      '--json',
      file('broken2.json', brokenEvaluate),
    ]);
    assert.equal(run.code, 1);
    const lines = run.stdout.trim().split('\n');
    assert.equal(lines.length, 1);
    const output = JSON.parse(lines[0] as string);
    assert.equal(output.valid, false);
    assert.deepEqual(output.errors.map((e: { pointer: string }) => e.pointer).sort(), ['/entities/1/Y']);
  });

  test('reads standard input with -', () => {
    const run = kgate(['--operation', 'similarityGet', '--status', '200', '-'], '0.61436052678568842');
    assert.equal(run.code, 0, run.stderr);
  });
});
