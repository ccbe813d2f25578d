import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { heartbeat, humanDuration, timeLeft } from './progress.ts';

test('humanDuration and timeLeft read as a person says them', () => {
  const cases = [
    { given: humanDuration(45_000), want: '45 s' },
    { given: humanDuration(750_000), want: '12 min 30 s' },
    { given: humanDuration(120_000), want: '2 min' },
    { given: timeLeft(10_000, 0, 10), want: '' },
    { given: timeLeft(10_000, 5, 10), want: ', about 10 s left' },
    { given: timeLeft(10_000, 10, 10), want: '' },
  ];
  for (const { given, want } of cases) assert.equal(given, want);
});

test('heartbeat writes a line every interval until stopped, and leaves out the beats skip() asks', async () => {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  let beat = 0;
  let beats = 0;
  const stop = heartbeat(() => `beat ${++beat}`, { stream, everyMs: 20, skip: () => ++beats % 2 === 0 });
  await new Promise((resolve) => setTimeout(resolve, 300));
  stop();
  const lines = text.trim().split('\n');
  assert.ok(lines.length >= 2, text);
  assert.equal(lines[0], 'beat 1');
  assert.ok(lines.length < beats, `${lines.length} lines of ${beats} beats: the skipped ones are left out`);
  const after = text;
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.equal(text, after, 'nothing after stop');
});
