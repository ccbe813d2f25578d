import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { foldLine, REPRO_DIR, reproPath, TERMINAL_LINE_LIMIT, wrapList } from './fold.ts';

const dir = mkdtempSync(join(tmpdir(), 'kgate-fold-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('foldLine: a short line whole; a long one its start, its length and the file that holds it whole', () => {
  const short = "curl -sS 'http://h/x'";
  assert.equal(foldLine(short, { dir, stem: 's' }), short);
  const long = `curl -sS 'http://h/e?expr=${'x'.repeat(TERMINAL_LINE_LIMIT)}'`;
  const shown = foldLine(long, { dir, stem: 'request-is-echoed-evaluate GET' });
  const path = reproPath(dir, 'request-is-echoed-evaluate GET', long);
  assert.equal(shown, `${long.slice(0, 160)}… (${long.length} characters; whole line in ${path})`);
  assert.ok(path.startsWith(join(dir, REPRO_DIR, 'request-is-echoed-evaluate-GET-')), path);
  assert.equal(readFileSync(path, 'utf8'), `${long}\n`);
  assert.equal(
    foldLine(long, { stem: 'x' }),
    `${long.slice(0, 160)}… (${long.length} characters)`,
    'no folder: no file',
  );
  assert.equal(reproPath(dir, 'a', long), reproPath(dir, 'a', long), 'the same line, the same file');
  assert.ok(!existsSync(join(dir, REPRO_DIR, 's')), 'no file for a short line');
});

test('wrapList: comma-joined, wrapped at the width, indented', () => {
  assert.deepEqual(wrapList(['aaaa', 'bbbb', 'cccc'], '  ', 14), ['  aaaa, bbbb,', '  cccc']);
  assert.deepEqual(wrapList([], '  '), []);
});
