import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeCache, hasCache, infrastructureOf, isCacheHit, nameCache } from './infrastructure.ts';

test('isCacheHit reads Age, X-Varnish, X-Cache, CF-Cache-Status, Cache-Status and Via', () => {
  const cases: { given: Record<string, string>; want: boolean }[] = [
    { given: { age: '3' }, want: true },
    // Apache's mod_cache: a hit served within the second says Age: 0, and nothing else.
    { given: { age: '0' }, want: true },
    // A cache that says MISS in words, with an Age of its own (a CDN's), is taken at its word.
    { given: { 'x-cache': 'MISS', age: '0' }, want: false },
    { given: { via: '1.1 proxy (cache hit)' }, want: true },
    { given: { via: '1.1 vm (squid/5.7)' }, want: false },
    { given: { 'x-varnish': '32770 5', age: '0' }, want: true },
    { given: { 'x-varnish': '32770', age: '0' }, want: false },
    { given: { 'x-cache': 'HIT from squid' }, want: true },
    { given: { 'x-cache': 'MISS from squid' }, want: false },
    { given: { 'cf-cache-status': 'HIT' }, want: true },
    { given: { 'cf-cache-status': 'DYNAMIC' }, want: false },
    { given: { 'cache-status': 'ExampleCache; hit' }, want: true },
    { given: { 'cache-status': 'ExampleCache; fwd=miss' }, want: false },
    { given: {}, want: false },
  ];
  for (const { given, want } of cases) assert.equal(isCacheHit(given), want, JSON.stringify(given));
});

test('a cache is named from its headers, with and without the values that change per answer', () => {
  const headers = {
    age: '4',
    'x-varnish': '32770 5',
    via: '1.1 varnish (Varnish/7.1)',
    'content-type': 'application/json',
  };
  assert.equal(describeCache(headers), 'Age: 4; X-Varnish: 32770 5; Via: 1.1 varnish (Varnish/7.1)');
  assert.equal(nameCache(headers), 'Age, X-Varnish; Via: 1.1 varnish (Varnish/7.1)');
  assert.equal(hasCache(headers), true);
  assert.equal(hasCache({ server: 'nginx/1.22.1' }), false);
  assert.deepEqual(infrastructureOf({ ...headers, server: 'nginx' }), {
    server: 'nginx',
    via: '1.1 varnish (Varnish/7.1)',
    cache: { age: '4', 'x-varnish': '32770 5' },
    hit: true,
  });
  assert.equal(describeCache({ 'cf-cache-status': 'HIT' }), 'CF-Cache-Status: HIT');
});
