import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import { readZip, scanForSecrets } from './secret-scan.ts';

/** Builds a one-entry deflated zip, the way Playwright's HTML report embeds its data. */
function zipOf(name: string, content: string): Buffer {
  const data = deflateRawSync(Buffer.from(content));
  const nameBytes = Buffer.from(name);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(content.length, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(content.length, 24);
  central.writeUInt16LE(nameBytes.length, 28);
  central.writeUInt32LE(0, 42);
  const centralStart = local.length + nameBytes.length + data.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + nameBytes.length, 12);
  end.writeUInt32LE(centralStart, 16);
  return Buffer.concat([local, nameBytes, data, central, nameBytes, end]);
}

test('readZip returns the entries of a deflated archive', () => {
  assert.deepEqual(readZip(zipOf('report.json', '{"a":1}')).map(String), ['{"a":1}']);
});

test('scanForSecrets finds a key in plain files, report.html, nested folders and the HTML report zip, and a proxy password percent-encoded', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kgate-scan-'));
  try {
    mkdirSync(join(dir, 'html'));
    const cases = [
      { given: { file: 'clean.txt', text: 'curl -H "Ocp-Apim-Subscription-Key: ***"' }, want: false },
      { given: { file: 'junit.xml', text: '<failure>key-0123456789abcdef</failure>' }, want: true },
      {
        given: { file: 'report.html', text: "<pre>curl -H 'Ocp-Apim-Subscription-Key: key-0123456789abcdef'</pre>" },
        want: true,
      },
      { given: { file: 'clean.html', text: "<pre>curl -H 'Ocp-Apim-Subscription-Key: ***'</pre>" }, want: false },
      {
        given: {
          file: 'html/index.html',
          text: `<template id="x">data:application/zip;base64,${zipOf('r.json', 'error: key-0123456789abcdef').toString('base64')}</template>`,
        },
        want: true,
      },
    ];
    cases.push({ given: { file: 'proxy.txt', text: 'proxy http://runner:p%40ss%20word@127.0.0.1:3128' }, want: true });
    for (const { given } of cases) writeFileSync(join(dir, given.file), given.text);
    const hits = scanForSecrets(dir, ['key-0123456789abcdef', 'p@ss word']).map((hit) =>
      hit.file.slice(dir.length + 1),
    );
    for (const { given, want } of cases) assert.equal(hits.includes(given.file), want, given.file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
