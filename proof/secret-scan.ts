import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';

/** Where a secret was found: a file, or an entry inside a file's embedded archive. */
export interface SecretHit {
  file: string;
  secret: string;
}

/**
 * Lists every file under `dir` (recursively) whose content contains one of the secrets, as given or
 * percent-encoded (a proxy password inside a URL). Playwright's HTML report keeps its data in a
 * base64 zip inside index.html: that archive is opened and its entries are searched too, so a key
 * in a test error cannot hide there. For a proxy, pass every form its password takes
 * (http/network.ts proxySecrets: as given, percent-encoded, inside the basic credentials).
 */
export function scanForSecrets(dir: string, secrets: string[]): SecretHit[] {
  const hits: SecretHit[] = [];
  for (const file of walk(dir)) {
    const texts = [readFileSync(file).toString('utf8')];
    for (const entry of embeddedZipEntries(texts[0]!)) texts.push(entry);
    for (const secret of secrets) {
      const forms = [...new Set([secret, encodeURIComponent(secret)])];
      if (texts.some((text) => forms.some((form) => text.includes(form)))) hits.push({ file, secret });
    }
  }
  return hits;
}

function walk(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

const ZIP_MARKER = 'data:application/zip;base64,';

/** The text of every entry of a base64 zip embedded in `text` (Playwright's HTML report), if any. */
export function embeddedZipEntries(text: string): string[] {
  const start = text.lastIndexOf(ZIP_MARKER);
  if (start < 0) return [];
  const end = text.indexOf('<', start);
  const zip = Buffer.from(text.slice(start + ZIP_MARKER.length, end < 0 ? undefined : end), 'base64');
  return readZip(zip).map((entry) => entry.toString('utf8'));
}

/** Reads the entries of a zip archive through its central directory (stored and deflated entries). */
export function readZip(zip: Buffer): Buffer[] {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) return [];
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const entries: Buffer[] = [];
  for (let i = 0; i < count && zip.readUInt32LE(at) === 0x02014b50; i++) {
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const dataStart = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(dataStart, dataStart + size);
    entries.push(method === 8 ? inflateRawSync(data) : data);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
