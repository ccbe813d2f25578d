import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/kgate.mjs', import.meta.url));

function start(args: string[]): { child: ChildProcess; firstLine: Promise<string>; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const firstLine = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no output within 20 s')), 20_000);
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    exit.then((code) => reject(new Error(`exited with ${code} before printing`)));
  });
  return { child, firstLine, exit };
}

describe('kgate serve', () => {
  test('--json prints exactly one line with url and keys; SIGTERM stops it with exit 0', async () => {
    const { child, firstLine, exit } = start(['--json', '--papers', '300']);
    try {
      const parsed = JSON.parse(await firstLine) as { url: string; keys: Record<string, string> };
      assert.deepEqual(Object.keys(parsed), ['command', 'verdict', 'exitCode', 'url', 'keys']);
      assert.match(parsed.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.deepEqual(Object.keys(parsed.keys), ['full', 'academicOnly', 'exhausted']);
      const reply = await fetch(`${parsed.url}/urlpreview/v7.0/search?q=https%3A%2F%2Fexample.com`, {
        headers: { 'Ocp-Apim-Subscription-Key': parsed.keys.full! },
      });
      assert.equal(reply.status, 200);
      child.kill('SIGTERM');
      assert.equal(await exit, 0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  test('--profile real serves the real profile at the root URL and says so in --json', async () => {
    const { child, firstLine, exit } = start(['--json', '--papers', '300', '--profile', 'real']);
    try {
      const parsed = JSON.parse(await firstLine) as { url: string; keys: Record<string, string>; profile: string };
      assert.equal(parsed.profile, 'real', 'the profile is named');
      const reply = await fetch(`${parsed.url}/academic/v1.0/evaluate?expr=Y%3E1900&count=2`, {
        headers: { 'Ocp-Apim-Subscription-Key': parsed.keys.full! },
      });
      const body = (await reply.json()) as Record<string, unknown>;
      assert.equal(reply.status, 200, 'evaluate answers');
      assert.equal('aborted' in body, false, 'no aborted when nothing timed out');
      assert.equal(reply.headers.get('x-powered-by'), 'ASP.NET', 'the real headers');
      child.kill('SIGTERM');
      assert.equal(await exit, 0, 'stops cleanly');
    } finally {
      child.kill('SIGKILL');
    }
  });

  test('keys from --config are masked, built-in ones shown', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kgate-serve-'));
    const file = join(dir, 'keys.json');
    writeFileSync(file, JSON.stringify({ keys: [{ name: 'full', key: 'secret-full-key-123', subscriptions: 'all' }] }));
    const { child, firstLine, exit } = start(['--json', '--papers', '300', '--config', file]);
    try {
      const parsed = JSON.parse(await firstLine) as { keys: Record<string, string> };
      assert.equal(parsed.keys.full, '***');
      assert.match(parsed.keys.academicOnly!, /^academicOnly-[0-9a-f]{24}$/);
      child.kill('SIGINT');
      assert.equal(await exit, 0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  const usage: { given: string[]; want: RegExp }[] = [
    {
      given: ['--port', '70000'],
      want: /option --port takes a TCP port number from 0 to 65535 \(0: a free one\), got '70000' \(out of range\)/,
    },
    { given: ['--rate-limit', 'fast'], want: /option --rate-limit takes a number of requests per second per key/ },
    { given: ['--body-limit', '0'], want: /option --body-limit takes a whole number of bytes from 1/ },
    { given: ['--bogus'], want: /unknown option --bogus/ },
    { given: ['extra'], want: /unexpected argument 'extra'/ },
    { given: ['--config', '/nonexistent/keys.json'], want: /config file \/nonexistent\/keys\.json/ },
    { given: ['--profile', 'strict'], want: /option --profile takes one of clean, real, got 'strict'/ },
  ];
  for (const { given, want } of usage) {
    test(`${given.join(' ')}: one line, exit 2`, () => {
      const run = spawnSync(process.execPath, [BIN, 'serve', ...given], { encoding: 'utf8', timeout: 20_000 });
      assert.equal(run.status, 2, run.stderr);
      assert.match(run.stderr, want);
      assert.equal(run.stderr.trim().split('\n').length, 1);
    });
  }

  test('--list-faults prints one line per fault: name, group, deviation, description', () => {
    const run = spawnSync(process.execPath, [BIN, 'serve', '--list-faults'], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(run.status, 0);
    const lines = run.stdout.trim().split('\n');
    assert.ok(lines.length >= 30, `${lines.length} faults`);
    for (const line of lines) {
      assert.match(
        line,
        /^[a-z0-9-]+ +(academic|similarity|answerSearch|urlPreview|eventKnowledge|all) +(forbidden|drift|hostile|real|release) +\S/,
        'name, group, deviation, description',
      );
    }
  });
});
