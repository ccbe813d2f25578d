import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type ParseResult, ResponseParser } from './response-parser.ts';

/** What reading `given` must yield: an answer, or a refusal whose message matches. */
type Want =
  | { status: number; body: string; reusable: boolean; rest?: string; headers?: Record<string, string> }
  | { problem: 'connection' | 'too-large'; error: RegExp };

interface Case {
  name: string;
  given: string;
  /** The connection ends after `given` (close-delimited bodies, cut-off answers). */
  close?: boolean;
  method?: string;
  want: Want;
}

const CASES: Case[] = [
  // Valid framings (RFC 9112 6.3, 7.1), as servers and front servers send them.
  {
    name: 'Content-Length',
    given: 'HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n{"a":1}',
    want: { status: 200, body: '{"a":1}', reusable: true },
  },
  {
    name: 'Content-Length with leading zeros',
    given: 'HTTP/1.1 200 OK\r\nContent-Length: 0007\r\n\r\n{"a":1}',
    want: { status: 200, body: '{"a":1}', reusable: true },
  },
  {
    name: 'repeated identical Content-Length fields',
    given: 'HTTP/1.1 200 OK\r\nContent-Length: 7\r\ncontent-length: 7\r\n\r\n{"a":1}',
    want: { status: 200, body: '{"a":1}', reusable: true },
  },
  {
    name: 'a Content-Length list of one value',
    given: 'HTTP/1.1 200 OK\r\nContent-Length: 7, 7\r\n\r\n{"a":1}',
    want: { status: 200, body: '{"a":1}', reusable: true },
  },
  {
    name: 'header names in any case',
    given: 'HTTP/1.1 200 OK\r\nCONTENT-TYPE: application/json\r\ncontent-LENGTH: 2\r\n\r\n{}',
    want: { status: 200, body: '{}', reusable: true, headers: { 'content-type': 'application/json' } },
  },
  {
    name: 'chunked, with chunk extensions and upper-case hex',
    given:
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;name=value\r\n{"a"\r\n3 ; quoted="x;y"\r\n:1}\r\nA\r\n0123456789\r\n0\r\n\r\n',
    want: { status: 200, body: '{"a":1}0123456789', reusable: true },
  },
  {
    name: 'chunked with a trailer section',
    given:
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Checksum\r\n\r\n2\r\n{}\r\n0\r\nX-Checksum: abc\r\nX-Other: d\r\n\r\n',
    want: { status: 200, body: '{}', reusable: true },
  },
  {
    name: 'chunked as the last of several transfer codings (gzip, chunked): the body stays coded',
    given: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n',
    want: { status: 200, body: 'abc', reusable: true },
  },
  {
    name: 'Transfer-Encoding in two fields, chunked last',
    given: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: Chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n',
    want: { status: 200, body: 'abc', reusable: true },
  },
  {
    name: 'a transfer coding other than chunked last: the body ends with the connection',
    given: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\nraw bytes',
    close: true,
    want: { status: 200, body: 'raw bytes', reusable: false },
  },
  {
    name: 'chunked and Content-Length: chunked wins, the connection is not used again',
    given: 'HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
    want: { status: 200, body: '{}', reusable: false },
  },
  {
    name: 'HTTP/1.1 without length: delimited by the close',
    given: 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"c":3}',
    close: true,
    want: { status: 200, body: '{"c":3}', reusable: false },
  },
  {
    name: 'HTTP/1.0 delimited by the close',
    given: 'HTTP/1.0 200 OK\r\n\r\n{"d":4}',
    close: true,
    want: { status: 200, body: '{"d":4}', reusable: false },
  },
  {
    name: 'HTTP/1.0 with Content-Length: closed after',
    given: 'HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}',
    want: { status: 200, body: '{}', reusable: false },
  },
  {
    name: 'HTTP/1.0 kept alive with Content-Length',
    given: 'HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\n{}',
    want: { status: 200, body: '{}', reusable: true },
  },
  {
    name: 'Connection: close',
    given: 'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}',
    want: { status: 200, body: '{}', reusable: false },
  },
  {
    name: 'Connection: close among other options',
    given: 'HTTP/1.1 200 OK\r\nConnection: Upgrade, Close\r\nContent-Length: 2\r\n\r\n{}',
    want: { status: 200, body: '{}', reusable: false },
  },
  {
    name: '100 Continue before the answer',
    given: 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}',
    want: { status: 200, body: '{}', reusable: true },
  },
  {
    name: '103 Early Hints with fields, then 100, then the answer',
    given:
      'HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}',
    want: { status: 201, body: '{}', reusable: true, headers: { 'content-length': '2' } },
  },
  {
    name: '204 has no body, whatever its fields say',
    given: 'HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n',
    want: { status: 204, body: '', reusable: true },
  },
  {
    name: '304 has no body',
    given: 'HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n',
    want: { status: 304, body: '', reusable: true },
  },
  {
    name: 'the answer to a HEAD has no body',
    given: 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n',
    method: 'HEAD',
    want: { status: 200, body: '', reusable: true },
  },
  {
    name: 'an empty reason phrase',
    given: 'HTTP/1.1 200 \r\nContent-Length: 2\r\n\r\n{}',
    want: { status: 200, body: '{}', reusable: true },
  },
  {
    name: 'no reason phrase and no space after the code',
    given: 'HTTP/1.1 414\r\nContent-Length: 0\r\n\r\n',
    want: { status: 414, body: '', reusable: true },
  },
  {
    name: 'a later minor version reads as HTTP/1.1',
    given: 'HTTP/1.2 200 OK\r\nContent-Length: 2\r\n\r\n{}',
    want: { status: 200, body: '{}', reusable: true },
  },
  {
    name: 'a folded field value (obs-fold) becomes one value',
    given: 'HTTP/1.1 200 OK\r\nX-Long: first\r\n  second\r\n\tthird\r\nContent-Length: 2\r\n\r\n{}',
    want: { status: 200, body: '{}', reusable: true, headers: { 'x-long': 'first second third' } },
  },
  {
    name: 'whitespace-preceded lines before the first field are ignored',
    given: 'HTTP/1.1 200 OK\r\n ignored: yes\r\nContent-Length: 2\r\n\r\n{}',
    want: { status: 200, body: '{}', reusable: true, headers: { 'content-length': '2' } },
  },
  {
    name: 'repeated fields are joined, empty values kept',
    given: 'HTTP/1.1 200 OK\r\nVary: a\r\nVary: b\r\nX-Empty:\r\nContent-Length: 0\r\n\r\n',
    want: { status: 200, body: '', reusable: true, headers: { vary: 'a, b', 'x-empty': '' } },
  },
  {
    name: 'a front server error page (nginx 414, text/html)',
    given:
      'HTTP/1.1 414 Request-URI Too Large\r\nServer: nginx\r\nContent-Type: text/html\r\nContent-Length: 13\r\nConnection: close\r\n\r\n<html></html>',
    want: { status: 414, body: '<html></html>', reusable: false },
  },
  {
    name: "Node's own 431 with an empty body",
    given: 'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n',
    close: true,
    want: { status: 431, body: '', reusable: false },
  },
  {
    name: 'bytes after the declared end are handed back',
    given: 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}HTTP/1.1 200 OK',
    want: { status: 200, body: '{}', reusable: true, rest: 'HTTP/1.1 200 OK' },
  },
  // Invalid messages: refused, never guessed at.
  {
    name: 'differing Content-Length values',
    given: 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    want: { problem: 'connection', error: /invalid Content-Length "2, 3"/ },
  },
  {
    name: 'a Content-Length that is not a number',
    given: 'HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\n{}',
    want: { problem: 'connection', error: /invalid Content-Length/ },
  },
  {
    name: 'an HTTP/1.0 answer with Transfer-Encoding (faulty framing)',
    given: 'HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
    want: { problem: 'connection', error: /HTTP\/1\.0 answer with Transfer-Encoding/ },
  },
  {
    name: 'a chunk size that is not hex',
    given: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0x2\r\n{}\r\n0\r\n\r\n',
    want: { problem: 'connection', error: /invalid chunk size line/ },
  },
  {
    name: 'a chunk size past any integer',
    given: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n',
    want: { problem: 'connection', error: /invalid chunk size line/ },
  },
  {
    name: 'chunk data longer than its size',
    given: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}}\r\n0\r\n\r\n',
    want: { problem: 'connection', error: /chunk data not followed by CRLF/ },
  },
  {
    name: 'a header line without a colon',
    given: 'HTTP/1.1 200 OK\r\nContent-Length 2\r\n\r\n{}',
    want: { problem: 'connection', error: /malformed header line/ },
  },
  {
    name: 'a field name with a space inside',
    given: 'HTTP/1.1 200 OK\r\nContent Length: 2\r\n\r\n{}',
    want: { problem: 'connection', error: /malformed header line/ },
  },
  {
    name: 'not an HTTP/1.x status line',
    given: 'ICY 200 OK\r\nContent-Length: 2\r\n\r\n{}',
    want: { problem: 'connection', error: /not an HTTP\/1\.x status line/ },
  },
  {
    name: '101 Switching Protocols that nobody asked for',
    given: 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n',
    want: { problem: 'connection', error: /101 Switching Protocols/ },
  },
  {
    name: 'a head larger than 16 KB',
    given: `HTTP/1.1 200 OK\r\nX-Big: ${'x'.repeat(17 * 1024)}\r\n\r\n`,
    want: { problem: 'connection', error: /HPE_HEADER_OVERFLOW/ },
  },
  {
    name: 'closed inside a Content-Length body',
    given: 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}',
    close: true,
    want: { problem: 'connection', error: /connection closed after 2 body bytes/ },
  },
  {
    name: 'closed inside a chunked body',
    given: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n',
    close: true,
    want: { problem: 'connection', error: /connection closed after 2 body bytes/ },
  },
  {
    name: 'closed before any byte',
    given: '',
    close: true,
    want: { problem: 'connection', error: /before any byte of the answer/ },
  },
  {
    name: 'a Content-Length over the cap fails before the body is read',
    given: 'HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n',
    want: { problem: 'too-large', error: /Content-Length 2000/ },
  },
  {
    name: 'chunks over the cap',
    given: `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3e8\r\n${'x'.repeat(1000)}\r\n3e8\r\n`,
    want: { problem: 'too-large', error: /1024-byte cap/ },
  },
];

/** Feeds `pieces` to a fresh parser, then ends the connection if asked; the first result that is not `more`. */
function read(pieces: Buffer[], c: Case): ParseResult {
  const parser = new ResponseParser(1024, c.method ?? 'GET');
  for (const piece of pieces) {
    const result = parser.push(piece);
    if (result.state !== 'more') return result;
  }
  return c.close ? parser.end() : { state: 'more' };
}

function check(result: ParseResult, c: Case, how: string): void {
  const label = `${c.name} (${how})`;
  if ('problem' in c.want) {
    assert.equal(result.state, 'error', label);
    if (result.state !== 'error') return;
    assert.equal(result.problem, c.want.problem, label);
    assert.match(result.message, c.want.error, label);
    return;
  }
  assert.equal(result.state, 'done', `${label}: ${result.state === 'error' ? result.message : result.state}`);
  if (result.state !== 'done') return;
  assert.equal(result.response.status, c.want.status, label);
  assert.equal(result.response.body.toString('latin1'), c.want.body, label);
  assert.equal(result.reusable, c.want.reusable, `${label}: reusable`);
  // Byte by byte, the answer is done at its last byte: what follows has not arrived yet.
  if (how === 'in one piece')
    assert.equal(result.rest.toString('latin1'), c.want.rest ?? '', `${label}: bytes after the end`);
  for (const [name, value] of Object.entries(c.want.headers ?? {}))
    assert.equal(result.response.headers[name], value, `${label}: header ${name}`);
}

test('the parser reads every framing HTTP/1.1 allows and refuses invalid messages (RFC 9112)', () => {
  for (const c of CASES) {
    const bytes = Buffer.from(c.given, 'latin1');
    check(read(bytes.length > 0 ? [bytes] : [], c), c, 'in one piece');
    // The same bytes one at a time: a boundary anywhere (inside CRLF, a chunk size, a field) changes nothing.
    check(
      read(
        [...bytes].map((byte) => Buffer.from([byte])),
        c,
      ),
      c,
      'byte by byte',
    );
  }
});

test('a body framed in one-byte chunks, read a few bytes at a time, holds about its own size until it ends', () => {
  // Every read is a buffer of its own; the body's pieces must not keep one object (and one read)
  // per byte alive until the answer ends: 200,000 of them held about 24 MB.
  const collect = gcOf();
  const BYTES = 200_000;
  const parser = new ResponseParser(8 * 1024 * 1024, 'GET');
  parser.push(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'));
  collect();
  const before = process.memoryUsage();
  for (let i = 0; i < BYTES; i++) {
    const frame = Buffer.from(`1\r\n${String.fromCharCode(97 + (i % 26))}\r\n`);
    assert.equal(parser.push(frame.subarray(0, 3)).state, 'more');
    assert.equal(parser.push(frame.subarray(3)).state, 'more');
  }
  collect();
  const after = process.memoryUsage();
  const held = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
  assert.ok(held < 8 * 1024 * 1024, `${Math.round(held / 1024)} KB held for a ${BYTES / 1000} KB body`);
  const result = parser.push(Buffer.from('0\r\n\r\n'));
  assert.equal(result.state, 'done');
  if (result.state === 'done') {
    assert.equal(result.response.body.length, BYTES);
    assert.equal(result.response.body.subarray(0, 27).toString(), 'abcdefghijklmnopqrstuvwxyza');
  }
});

/** The garbage collector, reached without a command-line flag. */
function gcOf(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
