// The door resolves the target, the keys and the limits one way for every command: a flag over the
// environment over the configuration file, and says where the target came from. Table-driven, in
// this process (the door is opened and closed; nothing is sent).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { KgateConfig } from '../../config/file.ts';
import { parseCommandArgs, UsageError } from './args.ts';
import { type Door, openDoor, writableFolder } from './door.ts';
import { NETWORK_OPTIONS } from './network.ts';
import { sharedOptions } from './vocabulary.ts';

const OPTIONS = {
  ...sharedOptions('base-url', 'config', 'report-dir', 'json', 'timeout', 'max-rps', 'max-requests', 'max-duration'),
  ...NETWORK_OPTIONS,
};

const dir = mkdtempSync(join(tmpdir(), 'kgate-door-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Opens the door of `argv` with `env` laid over an environment without kgate's variables, then closes it. */
async function door(argv: string[], env: Record<string, string>, config?: KgateConfig): Promise<Door> {
  const file = join(dir, `config-${Math.random().toString(16).slice(2)}.json`);
  if (config) writeFileSync(file, JSON.stringify(config));
  const names = ['KGATE_BASE_URL', 'KGATE_KEY', 'KGATE_AGAINST_KEY', 'PROD_KEY', ...Object.keys(env)];
  const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
  const log = console.log;
  console.log = () => {};
  for (const name of names) delete process.env[name];
  Object.assign(process.env, env);
  try {
    const parsed = parseCommandArgs([...argv, ...(config ? ['--config', file] : [])], OPTIONS, 'fuzz');
    const opened = openDoor({ command: 'fuzz', kind: 'fuzz' }, parsed);
    await opened.close();
    return opened;
  } finally {
    console.log = log;
    for (const [name, value] of Object.entries(saved))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  }
}

test('the target: --base-url, else KGATE_BASE_URL, else baseUrl of the file, else the embedded server; each says where it came from', async () => {
  const file: KgateConfig = { baseUrl: 'https://file.example.org' };
  const cases: { given: [string[], Record<string, string>, KgateConfig?]; want: [string | undefined, RegExp] }[] = [
    { given: [[], {}], want: [undefined, /^nothing names a target/] },
    { given: [[], {}, file], want: ['https://file.example.org', /^baseUrl in .*config-[0-9a-f]+\.json$/] },
    {
      given: [[], { KGATE_BASE_URL: 'http://env.example.org/' }, file],
      want: ['http://env.example.org', /^KGATE_BASE_URL$/],
    },
    {
      given: [['--base-url', 'http://flag.example.org/api/'], { KGATE_BASE_URL: 'http://env.example.org' }, file],
      want: ['http://flag.example.org/api', /^--base-url$/],
    },
  ];
  for (const { given, want } of cases) {
    const opened = await door(...given);
    assert.equal(opened.target.url, want[0], JSON.stringify(given));
    assert.match(opened.target.source, want[1], JSON.stringify(given));
  }
});

test('the keys: KGATE_KEY, else the variable keyVariables names; the limits: a flag over the file', async () => {
  const file: KgateConfig = {
    keyVariables: { full: 'PROD_KEY' },
    timeoutMs: 20_000,
    maxRps: 1,
    maxRequests: 300,
    maxDuration: 1200,
  };
  const fromFile = await door([], { PROD_KEY: 'p' }, file);
  assert.deepEqual(fromFile.keys, { full: 'p' });
  assert.deepEqual(fromFile.limits, { timeoutMs: 20_000, maxRps: 1, maxRequests: 300, maxDurationMs: 1_200_000 });
  const flags = await door(
    ['--timeout', '500ms', '--max-rps', '0.2', '--max-requests', '60', '--max-duration', '15m'],
    { PROD_KEY: 'p', KGATE_KEY: 'k' },
    file,
  );
  assert.deepEqual(flags.keys, { full: 'k' });
  assert.deepEqual(flags.limits, { timeoutMs: 500, maxRps: 0.2, maxRequests: 60, maxDurationMs: 900_000 });
  const none = await door([], {});
  assert.deepEqual(none.limits, {
    timeoutMs: undefined,
    maxRps: undefined,
    maxRequests: undefined,
    maxDurationMs: undefined,
  });
  const unset = await door([], {}, { keyVariables: { full: 'PROD_KEY', exhausted: 'SPENT' } });
  assert.deepEqual([unset.keys, unset.unsetKeyVariables], [{}, ['PROD_KEY', 'SPENT']]);
});

test('a KGATE_BASE_URL that is no base URL is one line naming the variable', async () => {
  await assert.rejects(
    () => door([], { KGATE_BASE_URL: 'ftp://x' }),
    (error: unknown) =>
      error instanceof UsageError && /^KGATE_BASE_URL takes an absolute http or https URL/.test(error.message),
  );
});

test('the report folder is made and proven writable, or one line names it and why', () => {
  const made = writableFolder(join(dir, 'a', 'b', 'c'), 'fuzz', 'fuzz');
  assert.equal(made, join(dir, 'a', 'b', 'c'));
  const file = join(dir, 'plain-file');
  writeFileSync(file, '');
  for (const [folder, code] of [
    [join(file, 'under'), 'ENOTDIR'],
    ['/proc/kgate-not-here/x', 'ENOENT'],
  ] as const) {
    assert.throws(
      () => writableFolder(folder, 'fuzz', 'fuzz'),
      (error: unknown) =>
        error instanceof UsageError &&
        error.message.startsWith(`cannot write this run's reports to ${folder} (${code}`) &&
        error.details.option === '--report-dir',
      folder,
    );
  }
});
