// What a run leaves behind, as the tests look at it: every file of its folder, its summary and its
// envelope, and the scratch folders (named for the run folder) it left in the OS temp folder.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Envelope } from '../reporting/envelope.ts';
import { envelopeSchemaErrors } from '../reporting/envelope-schema.ts';
import type { RunSummary } from '../reporting/summary.ts';

/** Every file below `dir`, relative to it. */
export function filesBelow(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesBelow(path).map((file) => join(name, file)) : [name];
  });
}

/** The scratch folders of the run whose folder is `runFolder` left in the OS temp folder. */
export function scratchLeft(runFolder: string): string[] {
  // The folder's name, then the six characters mkdtemp adds: the run of a folder named `a` is not that of `a-b`.
  const name = `kgate-run-${basename(runFolder)}-`;
  return readdirSync(tmpdir()).filter(
    (entry) => entry.startsWith(name) && /^[A-Za-z0-9]{6}$/.test(entry.slice(name.length)),
  );
}

/** The summary.json of a run folder. */
export function summaryIn(dir: string): RunSummary {
  return JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as RunSummary;
}

/** The envelope.json of a report folder, which must be there and valid against its schema. */
export function envelopeIn(dir: string): Envelope {
  const file = join(dir, 'envelope.json');
  assert.ok(existsSync(file), `${file} written`);
  const envelope = JSON.parse(readFileSync(file, 'utf8')) as Envelope;
  assert.deepEqual(envelopeSchemaErrors(envelope), [], `${file} is valid against the schema`);
  return envelope;
}
