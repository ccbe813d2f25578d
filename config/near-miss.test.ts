import assert from 'node:assert/strict';
import { test } from 'node:test';
import { didYouMean, editDistance, nearMisses } from './near-miss.ts';

test('the edit distance counts insertions, deletions, substitutions and swaps of neighbours', () => {
  const cases: { given: [string, string]; want: number }[] = [
    { given: ['max-rps', 'max-rps'], want: 0 },
    { given: ['max-rsp', 'max-rps'], want: 1 },
    { given: ['max-rp', 'max-rps'], want: 1 },
    { given: ['timeuot', 'timeout'], want: 1 },
    { given: ['json', 'jsno'], want: 1 },
    { given: ['seed', 'shard'], want: 3 },
    { given: ['', 'abc'], want: 3 },
  ];
  for (const { given, want } of cases) assert.equal(editDistance(...given), want, given.join(' / '));
});

test('near misses: another spelling first, then the nearest within a third of the length, then a prefix', () => {
  const options = [
    'max-rps',
    'max-rps-by-path',
    'max-duration',
    'timeout',
    'json',
    'seed',
    'shard',
    'checks',
    'exclude-checks',
  ];
  const keys = ['maxRps', 'maxRpsByPath', 'maxDuration', 'timeoutMs', 'baseUrl'];
  const cases: { given: [string, string[]]; want: string[] }[] = [
    { given: ['max-rsp', options], want: ['max-rps'] },
    { given: ['maxRPS', keys], want: ['maxRps'] },
    { given: ['max_rps', options], want: ['max-rps'] },
    { given: ['baseurl', keys], want: ['baseUrl'] },
    { given: ['jsn', options], want: ['json'] },
    { given: ['timout', options], want: ['timeout'] },
    { given: ['chekcs', options], want: ['checks'] },
    { given: ['max-dur', options], want: ['max-duration'] },
    { given: ['bogus', options], want: [] },
    { given: ['x', options], want: [] },
  ];
  for (const { given, want } of cases) assert.deepEqual(nearMisses(...given), want, given[0]);
  assert.equal(didYouMean('max-rsp', options, '--'), 'did you mean --max-rps?');
  assert.equal(didYouMean('mx', ['ma', 'mb']), 'did you mean ma or mb?');
  assert.equal(didYouMean('bogus', options), '');
});
