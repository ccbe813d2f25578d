import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ConfigError, loadConfig, parseApiList, parseConfig } from './file.ts';

const dir = mkdtempSync(join(tmpdir(), 'kgate-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('parseConfig accepts the documented keys and names the key and the rule otherwise', () => {
  const cases: { given: unknown; want: object | RegExp }[] = [
    { given: {}, want: {} },
    { given: { unsubscribedKeyCovers: ['academic'] }, want: { unsubscribedKeyCovers: ['academic'] } },
    { given: { $schema: './kgate.config.schema.json' }, want: { $schema: './kgate.config.schema.json' } },
    {
      given: { unsubscribedKeyCover: ['academic'] },
      want: /unknown key 'unsubscribedKeyCover' \(known keys: unsubscribedKeyCovers/,
    },
    {
      given: { unsubscribedKeyCovers: ['search'] },
      want: /key 'unsubscribedKeyCovers\.0' must be one of academic, answerSearch/,
    },
    { given: { unsubscribedKeyCovers: 'academic' }, want: /key 'unsubscribedKeyCovers' must be array/ },
    { given: [], want: /key '\(root\)' must be object/ },
  ];
  for (const { given, want } of cases) {
    if (want instanceof RegExp)
      assert.throws(
        () => parseConfig(given, 'kgate.config.json'),
        (error: unknown) => error instanceof ConfigError && want.test(error.message),
        JSON.stringify(given),
      );
    else assert.deepEqual(parseConfig(given, 'kgate.config.json'), want);
  }
});

test('loadConfig reads kgate.config.json from the working directory, or the file given', () => {
  assert.deepEqual(loadConfig(undefined, dir), {}, 'no file: no settings');
  writeFileSync(join(dir, 'kgate.config.json'), JSON.stringify({ unsubscribedKeyCovers: ['urlPreview'] }));
  assert.deepEqual(loadConfig(undefined, dir), { unsubscribedKeyCovers: ['urlPreview'] });
  writeFileSync(join(dir, 'other.json'), '{ not json');
  assert.throws(() => loadConfig('other.json', dir), /other\.json: not JSON/);
  assert.throws(() => loadConfig('missing.json', dir), /missing\.json: cannot read \(ENOENT\)/);
});

test('parseApiList reads comma-separated APIs or none', () => {
  const cases: { given: string; want: string[] | RegExp }[] = [
    { given: 'academic', want: ['academic'] },
    { given: 'academic, eventKnowledge', want: ['academic', 'eventKnowledge'] },
    { given: 'none', want: [] },
    {
      given: 'similarity',
      want: /'similarity' is not an API \(a comma-separated list of academic, answerSearch, urlPreview, eventKnowledge, or none\)/,
    },
    { given: ' , ', want: /is not an API/ },
  ];
  for (const { given, want } of cases) {
    if (want instanceof RegExp) assert.throws(() => parseApiList(given, 'KGATE_KEY_UNSUBSCRIBED_COVERS'), want, given);
    else assert.deepEqual(parseApiList(given, 'KGATE_KEY_UNSUBSCRIBED_COVERS'), want, given);
  }
});
