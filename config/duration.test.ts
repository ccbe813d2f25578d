import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DurationError, describeDuration, formatDuration, parseDuration } from './duration.ts';

test('a duration with a unit, or a bare number where the rule names its unit (a configuration key)', () => {
  const timeout = { minMs: 100, maxMs: 600_000, bare: 'ms' } as const;
  const limit = { minMs: 1_000, maxMs: 86_400_000, bare: 's' } as const;
  const option = { minMs: 100, maxMs: 600_000 } as const;
  const cases: { given: [string, typeof timeout | typeof limit | typeof option]; want: number | RegExp }[] = [
    { given: ['500ms', timeout], want: 500 },
    { given: ['10s', timeout], want: 10_000 },
    { given: ['1.5s', timeout], want: 1_500 },
    { given: ['2m', timeout], want: 120_000 },
    { given: [' 20S ', timeout], want: 20_000 },
    { given: ['10000', timeout], want: 10_000 },
    { given: ['900', limit], want: 900_000 },
    { given: ['20m', limit], want: 1_200_000 },
    { given: ['24h', limit], want: 86_400_000 },
    { given: ['.5h', limit], want: 1_800_000 },
    { given: ['10', timeout], want: /^a bare number, read as 10 milliseconds: below 100ms$/ },
    { given: ['11m', timeout], want: /^11m: above 10m$/ },
    { given: ['25h', limit], want: /^25h: above 24h$/ },
    { given: ['10parsecs', timeout], want: /^'parsecs' is not a unit kgate knows$/ },
    { given: ['soon', timeout], want: /^not a number with a unit$/ },
    { given: ['-3s', timeout], want: /^a duration is never negative$/ },
    { given: ['', timeout], want: /^not a number with a unit$/ },
    { given: ['2s', option], want: 2_000 },
    { given: ['5000', option], want: /^a bare number has no unit: write 5000ms or 5000s$/ },
    { given: ['1.5', option], want: /^a bare number has no unit: write 1.5ms or 1.5s$/ },
  ];
  for (const { given, want } of cases) {
    if (typeof want === 'number') assert.equal(parseDuration(...given), want, given[0]);
    else
      assert.throws(
        () => parseDuration(...given),
        (error: unknown) => error instanceof DurationError && want.test(error.message),
        given[0],
      );
  }
});

test('durations are written the short way, and the rule names its units and range', () => {
  const cases: { given: number; want: string }[] = [
    { given: 100, want: '100ms' },
    { given: 1_500, want: '1.5s' },
    { given: 10_000, want: '10s' },
    { given: 600_000, want: '10m' },
    { given: 90_000, want: '90s' },
    { given: 86_400_000, want: '24h' },
    { given: 0, want: '0ms' },
  ];
  for (const { given, want } of cases) assert.equal(formatDuration(given), want, String(given));
  assert.equal(
    describeDuration({ minMs: 100, maxMs: 600_000, bare: 'ms' }),
    'a duration with a unit, ms, s, m or h (such as 500ms, 10s, 2m; a bare number is milliseconds), from 100ms to 10m',
  );
  assert.equal(
    describeDuration({ minMs: 1_000, maxMs: 86_400_000 }),
    'a duration with a unit, ms, s, m or h (such as 500ms, 10s, 2m), from 1s to 24h',
  );
});
