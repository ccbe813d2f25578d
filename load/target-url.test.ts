import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { basePath, joinPath, originOf, targetUrl } from './target-url.ts';

const EVALUATE = '/academic/v1.0/evaluate?expr=Y%3E2012&count=3';

describe('targetUrl keeps the base URL path', () => {
  const cases: { given: [string, string]; want: string }[] = [
    { given: ['http://127.0.0.1:8080', EVALUATE], want: `http://127.0.0.1:8080${EVALUATE}` },
    { given: ['http://127.0.0.1:8080/', EVALUATE], want: `http://127.0.0.1:8080${EVALUATE}` },
    { given: ['http://host/api', EVALUATE], want: `http://host/api${EVALUATE}` },
    { given: ['http://host/api/', EVALUATE], want: `http://host/api${EVALUATE}` },
    { given: ['http://host/api//', EVALUATE], want: `http://host/api${EVALUATE}` },
    {
      given: ['https://host:8443/a/b', '/urlpreview/v7.0/search'],
      want: 'https://host:8443/a/b/urlpreview/v7.0/search',
    },
    // Encoded text in either part is sent as written: never decoded, never encoded twice.
    {
      given: ['http://host/my%20api', '/eventknowledge/v1.0/events/a%2Fb/documents?$top=3'],
      want: 'http://host/my%20api/eventknowledge/v1.0/events/a%2Fb/documents?$top=3',
    },
    {
      given: ['http://host/api', "/academic/v1.0/evaluate?expr=Composite(AA.AuN%3D%3D'x')&q=a+b"],
      want: "http://host/api/academic/v1.0/evaluate?expr=Composite(AA.AuN%3D%3D'x')&q=a+b",
    },
    { given: ['http://host/api', 'academic/v1.0/similarity'], want: 'http://host/api/academic/v1.0/similarity' },
    { given: ['http://[::1]:9000/api', '/x?y=/z'], want: 'http://[::1]:9000/api/x?y=/z' },
  ];
  for (const { given, want } of cases) {
    test(`${given[0]} + ${given[1]}`, () => assert.equal(targetUrl(...given), want));
  }
});

describe('basePath and joinPath', () => {
  const paths: { given: string; want: string }[] = [
    { given: 'http://host', want: '' },
    { given: 'http://host/', want: '' },
    { given: 'http://host/api', want: '/api' },
    { given: 'http://host/api/', want: '/api' },
    { given: 'http://host/v1/api%20x/', want: '/v1/api%20x' },
  ];
  for (const { given, want } of paths)
    test(`basePath(${given}) is '${want}'`, () => assert.equal(basePath(given), want));

  const joins: { given: [string, string]; want: string }[] = [
    { given: ['', '/a?b=c'], want: '/a?b=c' },
    { given: ['/api', '/a?b=c'], want: '/api/a?b=c' },
    { given: ['/api/', '/a?b=c'], want: '/api/a?b=c' },
    { given: ['/api', ''], want: '/api' },
    { given: ['', ''], want: '/' },
  ];
  for (const { given, want } of joins)
    test(`joinPath('${given[0]}', '${given[1]}')`, () => assert.equal(joinPath(...given), want));

  test('a base URL with a query or fragment, or not absolute, is refused', () => {
    assert.throws(() => basePath('http://host/api?code=1'), /no query or fragment/);
    assert.throws(() => basePath('http://host/api#x'), /no query or fragment/);
    assert.throws(() => originOf('/api'), /not an absolute URL/);
  });
});
