import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { heartbeat, humanDuration, progressDisplay, timeLeft } from './progress.ts';

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

test('progressDisplay on a terminal rewrites one line in place and clears it; elsewhere it writes plain lines', async () => {
  const capture = () => {
    const stream = new PassThrough();
    const out = { text: '' };
    stream.on('data', (chunk: Buffer) => {
      out.text += chunk.toString();
    });
    return { stream, out };
  };
  const live = capture();
  let n = 0;
  const stopLive = progressDisplay(() => `tests ${++n}`, { stream: live.stream, interactive: true });
  await new Promise((resolve) => setTimeout(resolve, 1_150));
  stopLive();
  stopLive();
  await new Promise((resolve) => setImmediate(resolve));
  assert.doesNotMatch(live.out.text, /\n/, 'no line is left behind on a terminal');
  assert.match(live.out.text, /^\r\x1b\[2Ktests 1\r\x1b\[2Ktests 2/, 'the line is redrawn in place');
  assert.ok(live.out.text.endsWith('\r\x1b[2K'), 'and cleared at the end');

  const plain = capture();
  const stopPlain = progressDisplay(() => 'tests', { stream: plain.stream, interactive: false, everyMs: 20 });
  await new Promise((resolve) => setTimeout(resolve, 90));
  stopPlain();
  assert.match(plain.out.text, /^(tests\n)+$/, 'periodic lines a log keeps');
});
