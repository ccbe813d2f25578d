// Reads one HTTP/1.x answer from the bytes as they arrive, by the message rules of RFC 9112: any
// valid message a server or a front server may send is read (interim 1xx answers, chunked bodies
// with extensions and trailers, bodies delimited by the close, HTTP/1.0 answers, repeated identical
// Content-Length, folded header lines), and an invalid one is refused with the reason, never guessed
// at: a message whose end cannot be known for sure must not be read as an answer.

/** Largest status line and headers read (and largest trailer section), as node:http allows. */
export const MAX_HEADER_BYTES = 16 * 1024;

/** Why bytes could not be read as an answer: each maps to one named transport check. */
export type ParseProblem = 'connection' | 'too-large';

/** An answer read in full (up to the size cap). */
export interface ParsedResponse {
  status: number;
  /** Lower-case header names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  body: Buffer;
  /** The HTTP version of the status line: `1.1`, or `1.0` for an HTTP/1.0 answer. */
  version?: string;
}

/** What the parser makes of the bytes so far. */
export type ParseResult =
  | { state: 'more' }
  | { state: 'done'; response: ParsedResponse; rest: Buffer; reusable: boolean }
  | { state: 'error'; problem: ParseProblem; message: string };

/** The first bytes of a chunk, printable. */
export function preview(chunk: Buffer): string {
  const text = chunk
    .subarray(0, 80)
    .toString('latin1')
    .replace(/[^\x20-\x7e]/g, '.');
  return JSON.stringify(chunk.length > 80 ? `${text}...` : text);
}

type Head = { status: number; headers: Record<string, string>; reusable: boolean; version: string };
type Framing = { kind: 'length'; left: number } | { kind: 'chunked' } | { kind: 'close' };

const CHUNK_SIZE = /^([0-9A-Fa-f]+)[ \t]*(?:;.*)?$/;
/**
 * Body pieces shorter than this are copied into one buffer of BODY_BLOCK bytes rather than kept as
 * views of the bytes read: an answer framed in one-byte chunks, read a few bytes at a time, is then a
 * few buffers, not one object (and one read's memory) held per byte until it ends.
 */
const SMALL_PIECE = 4 * 1024;
const BODY_BLOCK = 16 * 1024;

/**
 * One answer's parser. Feed it with push() as bytes arrive and end() when the connection ends;
 * `rest` of a complete answer is whatever came after its end (stray bytes, for the caller to judge).
 */
export class ResponseParser {
  private buffer: Buffer = Buffer.alloc(0);
  private head: Head | undefined;
  private framing: Framing | undefined;
  private readonly chunks: Buffer[] = [];
  /** The block small pieces are copied into (see SMALL_PIECE), and how much of it is filled. */
  private block: Buffer | undefined;
  private blockUsed = 0;
  /** Body bytes read so far (after decoding chunked framing). */
  bodyBytes = 0;
  /** Bytes of the answer received at all. */
  received = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly method: string,
  ) {}

  /** The final answer's status, once its head has arrived. */
  get status(): number | undefined {
    return this.head?.status;
  }

  push(chunk: Buffer): ParseResult {
    this.received += chunk.length;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    return this.advance();
  }

  /** The connection ended: an answer framed by the close is complete now; anything else is cut off. */
  end(): ParseResult {
    if (this.head && this.framing?.kind === 'close') {
      this.take(this.buffer);
      if (this.bodyBytes > this.maxBytes) return this.tooLarge();
      return this.done(Buffer.alloc(0), false);
    }
    const where = this.head
      ? `connection closed after ${this.bodyBytes} body bytes`
      : this.received > 0
        ? `connection closed after ${this.received} bytes of the status line and headers`
        : 'connection closed before any byte of the answer';
    return this.invalid(where);
  }

  private advance(): ParseResult {
    for (;;) {
      if (!this.head) {
        const at = this.buffer.indexOf('\r\n\r\n');
        if (at < 0) return this.buffer.length > MAX_HEADER_BYTES ? this.headerOverflow() : { state: 'more' };
        if (at > MAX_HEADER_BYTES) return this.headerOverflow();
        const head = parseHead(this.buffer.subarray(0, at).toString('latin1'));
        if ('message' in head) return this.invalid(head.message);
        this.buffer = this.buffer.subarray(at + 4);
        // Interim answers (100 Continue, 103 Early Hints...) come before the final one: read past them.
        if (head.status >= 100 && head.status < 200) {
          if (head.status === 101)
            return this.invalid('101 Switching Protocols to a request that asked for no upgrade');
          continue;
        }
        const framing = framingOf(head, this.method);
        if ('message' in framing) return this.invalid(framing.message);
        this.head = head;
        this.framing = framing.framing;
        if (!framing.reusable) head.reusable = false;
        if (this.framing.kind === 'length' && this.framing.left > this.maxBytes)
          return this.tooLarge(this.framing.left);
      }
      const framing = this.framing!;
      if (framing.kind === 'close') {
        this.take(this.buffer);
        this.buffer = Buffer.alloc(0);
        return this.bodyBytes > this.maxBytes ? this.tooLarge() : { state: 'more' };
      }
      if (framing.kind === 'length') {
        const piece = this.buffer.subarray(0, framing.left);
        this.take(piece);
        framing.left -= piece.length;
        this.buffer = this.buffer.subarray(piece.length);
        return framing.left === 0 ? this.done(this.buffer, this.head!.reusable) : { state: 'more' };
      }
      // Chunked (RFC 9112 7.1): size in hex, optional extensions (ignored), CRLF, data, CRLF; a
      // zero size ends the body, after an optional trailer section and an empty line.
      const line = this.buffer.indexOf('\r\n');
      if (line < 0) return this.buffer.length > MAX_HEADER_BYTES ? this.headerOverflow() : { state: 'more' };
      const sizeLine = this.buffer.subarray(0, line).toString('latin1');
      const match = CHUNK_SIZE.exec(sizeLine);
      // More than 13 hex digits is beyond any body kgate reads (and beyond exact integers).
      if (!match || match[1]!.replace(/^0+(?=.)/, '').length > 13)
        return this.invalid(`invalid chunk size line in a chunked body: ${preview(Buffer.from(sizeLine, 'latin1'))}`);
      const size = Number.parseInt(match[1]!, 16);
      if (size === 0) {
        const after = this.buffer.subarray(line + 2);
        const blank = after.subarray(0, 2).equals(CRLF) ? 0 : after.indexOf('\r\n\r\n');
        if (blank < 0) return after.length > MAX_HEADER_BYTES ? this.headerOverflow() : { state: 'more' };
        if (blank > 0) {
          const trailers = parseFields(after.subarray(0, blank).toString('latin1').split('\r\n'), {});
          if (trailers) return this.invalid(`trailer section: ${trailers}`);
        }
        const end = line + 2 + (blank === 0 ? 2 : blank + 4);
        return this.done(this.buffer.subarray(end), this.head!.reusable);
      }
      if (this.bodyBytes + size > this.maxBytes) return this.tooLarge();
      if (this.buffer.length < line + 2 + size + 2) return { state: 'more' };
      if (!this.buffer.subarray(line + 2 + size, line + 2 + size + 2).equals(CRLF))
        return this.invalid('chunk data not followed by CRLF in a chunked body');
      this.take(this.buffer.subarray(line + 2, line + 2 + size));
      this.buffer = this.buffer.subarray(line + 2 + size + 2);
    }
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    this.bodyBytes += piece.length;
    if (this.bodyBytes > this.maxBytes) return;
    if (piece.length >= SMALL_PIECE) {
      this.closeBlock();
      this.chunks.push(piece);
      return;
    }
    if (!this.block || this.blockUsed + piece.length > this.block.length) {
      this.closeBlock();
      this.block = Buffer.allocUnsafe(BODY_BLOCK);
    }
    piece.copy(this.block, this.blockUsed);
    this.blockUsed += piece.length;
  }

  /** Ends the block small pieces are copied into: its filled part joins the body's pieces. */
  private closeBlock(): void {
    if (this.block && this.blockUsed > 0) this.chunks.push(this.block.subarray(0, this.blockUsed));
    this.block = undefined;
    this.blockUsed = 0;
  }

  private done(rest: Buffer, reusable: boolean): ParseResult {
    const head = this.head!;
    this.closeBlock();
    return {
      state: 'done',
      response: { status: head.status, headers: head.headers, body: Buffer.concat(this.chunks), version: head.version },
      rest,
      reusable,
    };
  }

  private invalid(message: string): ParseResult {
    return { state: 'error', problem: 'connection', message };
  }

  private tooLarge(declared?: number): ParseResult {
    return {
      state: 'error',
      problem: 'too-large',
      message: `body exceeds the ${this.maxBytes}-byte cap${declared === undefined ? '' : ` (Content-Length ${declared})`}`,
    };
  }

  private headerOverflow(): ParseResult {
    return this.invalid(`HPE_HEADER_OVERFLOW: status line and headers larger than ${MAX_HEADER_BYTES} bytes`);
  }
}

const CRLF = Buffer.from('\r\n');

/**
 * Reads header field lines into `headers` (lower-case names, repeats joined with ', '). A line
 * starting with whitespace continues the field before it (obsolete line folding, replaced by a
 * space, RFC 9112 5.2); before any field it is ignored (RFC 9112 2.2). CR and NUL inside a value
 * become spaces (RFC 9110 5.5). Returns what is wrong, or undefined.
 */
function parseFields(lines: string[], headers: Record<string, string>): string | undefined {
  let last: string | undefined;
  for (const line of lines) {
    if (/^[ \t]/.test(line)) {
      if (last !== undefined) headers[last] = `${headers[last]} ${clean(line)}`.trim();
      continue;
    }
    const colon = line.indexOf(':');
    const name = line.slice(0, Math.max(colon, 0)).trimEnd().toLowerCase();
    if (colon <= 0 || !/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name))
      return `malformed header line: ${preview(Buffer.from(line, 'latin1'))}`;
    const value = clean(line.slice(colon + 1));
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    last = name;
  }
  return undefined;
}

function clean(value: string): string {
  return value.replace(/[\r\n\0]/g, ' ').trim();
}

/** The status line and header fields of an answer, or what is wrong with them. */
function parseHead(text: string): Head | { message: string } {
  const [statusLine = '', ...lines] = text.split('\r\n');
  // HTTP-version SP status-code SP [reason-phrase]; the reason is never read, and a missing last SP is forgiven.
  const match = /^HTTP\/1\.(\d) (\d{3})(?: .*)?$/.exec(statusLine);
  if (!match) return { message: `not an HTTP/1.x status line: ${preview(Buffer.from(statusLine, 'latin1'))}` };
  const headers: Record<string, string> = {};
  const wrong = parseFields(lines, headers);
  if (wrong) return { message: wrong };
  const version = match[1] === '0' ? '1.0' : '1.1';
  const connection = (headers.connection ?? '').toLowerCase();
  // HTTP/1.1 (and later minor versions) persist unless closed; HTTP/1.0 only when kept alive (RFC 9112 9.3).
  const reusable = version === '1.1' ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
  return { status: Number(match[2]), headers, reusable, version };
}

/** How the body of an answer ends (RFC 9112 6.3), and whether its connection may carry another exchange. */
function framingOf(head: Head, method: string): { framing: Framing; reusable: boolean } | { message: string } {
  if (method === 'HEAD' || head.status === 204 || head.status === 304)
    return { framing: { kind: 'length', left: 0 }, reusable: true };
  const encoding = head.headers['transfer-encoding'];
  if (encoding !== undefined) {
    // An HTTP/1.0 message with Transfer-Encoding has faulty framing whatever else it says (RFC 9112 6.1).
    if (head.version === '1.0')
      return { message: `an HTTP/1.0 answer with Transfer-Encoding ${JSON.stringify(encoding)}` };
    const codings = encoding
      .split(',')
      .map((coding) => coding.trim().toLowerCase())
      .filter(Boolean);
    // Chunked last: chunked framing, and it overrides any Content-Length (a message with both is
    // suspect, so its connection is not used again). Otherwise the body ends with the connection.
    if (codings.at(-1) === 'chunked')
      return { framing: { kind: 'chunked' }, reusable: head.headers['content-length'] === undefined };
    return { framing: { kind: 'close' }, reusable: false };
  }
  const length = head.headers['content-length'];
  if (length === undefined) return { framing: { kind: 'close' }, reusable: false };
  // Repeated fields, or a list, of one and the same value are that value (RFC 9110 8.6); differing ones are invalid.
  const values = [...new Set(length.split(',').map((value) => value.trim()))];
  const left = values.length === 1 && /^\d{1,15}$/.test(values[0]!) ? Number(values[0]) : Number.NaN;
  if (!Number.isSafeInteger(left)) return { message: `invalid Content-Length ${JSON.stringify(length)}` };
  return { framing: { kind: 'length', left }, reusable: true };
}
