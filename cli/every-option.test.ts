// Every option of every command, read from each command's own option table (an option added later
// is covered without a word here), is driven with a value that breaks its rule and with a near miss
// of its name, with and without --json: one line on stderr naming the option and the rule, exit
// code 2, and with --json exactly one JSON object on stdout that names them too. In this process
// (the commands stop before they do anything), plus a few runs of the real binary.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { scanForSecrets } from '../proof/secret-scan.ts';
import { startReferenceServer } from '../reference/index.ts';
import { runKgate } from '../scripts/run-process.ts';
import { invalidValueOf, type OptionTable, ruleOf } from './door/args.ts';
import type { Command } from './door/command.ts';
import { COMMANDS, main } from './main.ts';

/** One table of options: the words that reach it (`drift live`), its options, its usage text. */
interface Table {
  words: string[];
  options: OptionTable;
  usage: string;
  /** The other tables of the same command (a near miss must not be one of their options). */
  siblings: OptionTable[];
}

const tables: Table[] = [];
const loaded = new Map<string, Command>();

before(async () => {
  for (const [name, entry] of Object.entries(COMMANDS)) {
    const command = await entry.load();
    loaded.set(name, command);
    const subs = Object.entries(command.subcommands ?? {});
    const all = [command.options, ...subs.map(([, sub]) => sub.options)].filter(
      (table): table is OptionTable => table !== undefined,
    );
    if (command.options) tables.push({ words: [name], options: command.options, usage: command.usage, siblings: all });
    for (const [sub, spec] of subs)
      tables.push({ words: [name, sub], options: spec.options, usage: spec.usage, siblings: all });
  }
});

/**
 * Runs kgate in this process, what it prints captured: console.log and console.error, and direct
 * writes to stderr (stdout is the test runner's own channel here, so direct writes to it are left
 * alone; no command writes there before it has read its options).
 */
async function kgate(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const saved = { log: console.log, error: console.error, err: process.stderr.write };
  console.log = (...parts: unknown[]) => {
    stdout += `${parts.map(String).join(' ')}\n`;
  };
  console.error = (...parts: unknown[]) => {
    stderr += `${parts.map(String).join(' ')}\n`;
  };
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    return { code: await main(argv), stdout, stderr };
  } finally {
    console.log = saved.log;
    console.error = saved.error;
    process.stderr.write = saved.err;
  }
}

/** The one line a stop printed on stderr (asserting there is exactly one, without a stack). */
function oneLine(stderr: string, what: string): string {
  const lines = stderr.split('\n').filter((line) => line.trim() !== '');
  assert.equal(lines.length, 1, `${what}: one line on stderr, got:\n${stderr}`);
  assert.doesNotMatch(lines[0]!, /^\s+at |Error:/, `${what}: no stack`);
  return lines[0]!;
}

/** The one JSON object on stdout of a --json run. */
function oneObject(stdout: string, what: string): Record<string, unknown> & { error: Record<string, unknown> } {
  const lines = stdout.split('\n').filter((line) => line.trim() !== '');
  assert.equal(lines.length, 1, `${what}: one line on stdout, got:\n${stdout}`);
  const parsed = JSON.parse(lines[0]!) as Record<string, unknown> & { error: Record<string, unknown> };
  assert.equal(typeof parsed, 'object', what);
  return parsed;
}

/**
 * A near miss of an option's name that is no option of the command: one letter left out (or, for a
 * name that would then collide, one letter doubled).
 */
function nearMiss(name: string, table: Table): string {
  const taken = new Set(table.siblings.flatMap((options) => Object.keys(options)));
  const middle = Math.floor(name.length / 2);
  for (let offset = 0; offset < name.length; offset++) {
    const at = (middle + offset) % name.length;
    for (const miss of [name.slice(0, at) + name.slice(at + 1), name.slice(0, at + 1) + name.slice(at)]) {
      if (miss.length > 1 && !taken.has(miss) && !miss.startsWith('-') && !miss.endsWith('-')) return miss;
    }
  }
  throw new Error(`no near miss of --${name}`);
}

const quoteRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('every option of every command', () => {
  test('every command declares its options in a table (its own, or one per subcommand)', () => {
    for (const [name, command] of loaded)
      assert.ok(
        command.options !== undefined || Object.keys(command.subcommands ?? {}).length > 0,
        `kgate ${name} has an option table`,
      );
    assert.ok(tables.length >= 15, `${tables.length} tables`);
  });

  test('every option is in its usage text', () => {
    for (const table of tables)
      for (const name of Object.keys(table.options))
        assert.match(
          table.usage,
          new RegExp(`--${quoteRegex(name)}\\b`),
          `kgate ${table.words.join(' ')} --help names --${name}`,
        );
  });

  test('a bad value: one line naming the option and the rule, exit 2; with --json one object naming them', async () => {
    let driven = 0;
    for (const table of tables) {
      const label = table.words.join(' ');
      for (const [name, spec] of Object.entries(table.options)) {
        const bad =
          spec.type === 'boolean' ? [`--${name}=${invalidValueOf(spec)}`] : [`--${name}`, invalidValueOf(spec)];
        const what = `kgate ${label} ${bad.join(' ')}`;
        const rule = ruleOf(spec);
        const plain = await kgate([...table.words, ...bad]);
        assert.equal(plain.code, 2, `${what}: exit 2\n${plain.stderr}`);
        const line = oneLine(plain.stderr, what);
        assert.ok(line.startsWith(`kgate ${label}: `), `${what}: says the command: ${line}`);
        assert.ok(line.includes(`--${name}`), `${what}: names the option: ${line}`);
        assert.ok(line.includes(rule), `${what}: states the rule '${rule}': ${line}`);
        assert.equal(plain.stdout, '', `${what}: nothing on stdout without --json`);

        const json = await kgate([...table.words, ...bad, '--json']);
        assert.equal(json.code, 2, `${what} --json: exit 2`);
        assert.equal(oneLine(json.stderr, `${what} --json`), line, `${what} --json: the same line on stderr`);
        const object = oneObject(json.stdout, `${what} --json`);
        assert.deepEqual(
          [object.command, object.verdict, object.exitCode],
          [label, 'error', 2],
          `${what} --json: ${json.stdout}`,
        );
        assert.equal(object.error.kind, 'usage', what);
        assert.equal(object.error.option, `--${name}`, what);
        assert.equal(object.error.rule, rule, what);
        assert.equal(object.error.message, line, what);
        driven++;
      }
    }
    assert.ok(driven >= 100, `${driven} options driven`);
  });

  test('a near miss: one line naming it and the option meant, exit 2; with --json one object naming both', async () => {
    for (const table of tables) {
      const label = table.words.join(' ');
      // An old spelling is answered with its new name, not offered as a near miss of itself.
      for (const [name, spec] of Object.entries(table.options).filter(([, option]) => !option.renamedTo)) {
        const miss = nearMiss(name, table);
        const argv = [...table.words, `--${miss}`, ...(spec.type === 'string' ? ['1'] : [])];
        const what = `kgate ${argv.join(' ')}`;
        const plain = await kgate(argv);
        assert.equal(plain.code, 2, `${what}: exit 2`);
        const line = oneLine(plain.stderr, what);
        assert.ok(line.includes(`unknown option --${miss}`), `${what}: names the option given: ${line}`);
        assert.match(line, new RegExp(`did you mean [^?]*--${quoteRegex(name)}\\b`), `${what}: suggests --${name}`);

        const json = await kgate([...argv, '--json']);
        assert.equal(json.code, 2, `${what} --json: exit 2`);
        const object = oneObject(json.stdout, `${what} --json`);
        assert.deepEqual([object.command, object.verdict, object.exitCode], [label, 'error', 2], what);
        assert.equal(object.error.option, `--${miss}`, what);
        assert.equal(object.error.rule, `is not an option of kgate ${label}`, what);
        assert.match(String(object.error.message), new RegExp(`did you mean [^?]*--${quoteRegex(name)}\\b`), what);
      }
    }
  });

  test('every subcommand --help prints its own usage', async () => {
    for (const table of tables.filter((t) => t.words.length === 2)) {
      const result = await kgate([...table.words, '--help']);
      assert.equal(result.code, 0);
      assert.equal(result.stdout.trim(), table.usage.trim(), `kgate ${table.words.join(' ')} --help`);
      assert.match(result.stdout, new RegExp(`^usage: kgate ${quoteRegex(table.words.join(' '))}`));
    }
  });
});

describe('usage errors of the real binary', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kgate-every-option-'));
    writeFileSync(join(dir, 'kgate.config.json'), JSON.stringify({ maxRPS: 1 }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { KGATE_BASE_URL: '', KGATE_KEY: '', KGATE_CONFORM_OPTIONS: '', CI: '1' };

  test('--max-rps -3 is out of range, one line and one JSON object, exit 2', async () => {
    const result = await runKgate(['conform', '--max-rps', '-3', '--json'], { env });
    assert.equal(result.code, 2, result.stderr);
    assert.equal(
      result.stderr.trim(),
      "kgate conform: option --max-rps takes a number of requests per second from 0.001 to 100000, got '-3' (out of range)",
    );
    const object = JSON.parse(result.stdout) as { error: { option: string; rule: string } };
    assert.deepEqual(object.error.option, '--max-rps');
  });

  test('a configuration key near miss names the key meant; the JSON object names the key and the file', async () => {
    const result = await runKgate(['conform', '--json'], { cwd: dir, env });
    assert.equal(result.code, 2, result.stderr);
    assert.equal(result.stderr.trim(), "kgate conform: kgate.config.json: unknown key 'maxRPS' (did you mean maxRps?)");
    const object = JSON.parse(result.stdout) as { error: Record<string, string> };
    assert.deepEqual(
      [object.error.kind, object.error.key, object.error.file, object.error.suggestion],
      ['usage', 'maxRPS', 'kgate.config.json', 'maxRps'],
    );
  });

  test('a password in --base-url is masked in every line a run prints and every file it writes', async () => {
    const server = await startReferenceServer({ quiet: true, rateLimit: 1e9 });
    try {
      const reports = join(dir, 'masked');
      const target = server.url.replace('http://', 'http://bob:PaSsWoRd-777@');
      const result = await runKgate(['fuzz', '--base-url', target, '--max-requests', '10', '--report-dir', reports], {
        env: { ...env, KGATE_KEY: server.keys.full },
      });
      assert.equal(result.code, 0, result.stderr);
      assert.match(
        result.stdout,
        /^kgate fuzz: target: http:\/\/bob:\*\*\*@127\.0\.0\.1:\d+ \(from --base-url\)$/m,
        'the first line names the target, masked',
      );
      assert.ok(!`${result.stdout}${result.stderr}`.includes('PaSsWoRd-777'), 'not in the terminal');
      assert.deepEqual(scanForSecrets(reports, ['PaSsWoRd-777']), [], 'nor in a report');
    } finally {
      await server.close();
    }
  });

  test('an unreachable target with a password in its URL: one line, masked, and one JSON object, exit 2', async () => {
    for (const command of [
      ['conform'],
      ['fuzz'],
      ['drift', 'live'],
      ['compare', '--against-url', 'http://127.0.0.1:1'],
    ]) {
      const result = await runKgate([...command, '--base-url', 'http://bob:PaSsWoRd-777@127.0.0.1:1/api', '--json'], {
        env: { ...env, KGATE_KEY: 'kgate-test-key-0000' },
      });
      const what = command.join(' ');
      assert.equal(result.code, 2, `${what}: ${result.stderr}`);
      assert.ok(!`${result.stdout}${result.stderr}`.includes('PaSsWoRd-777'), `${what}: the password is masked`);
      assert.match(result.stderr, /bob:\*\*\*@127\.0\.0\.1:1/, what);
      const object = JSON.parse(result.stdout) as { command: string; error: { kind: string; option: string } };
      assert.deepEqual(
        [object.command, object.error.kind, object.error.option],
        [what.split(' --')[0], 'target', '--base-url'],
        what,
      );
    }
  });
});
