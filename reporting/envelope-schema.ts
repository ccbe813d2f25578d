// The JSON Schema of envelope.json (envelope.schema.json beside this file), compiled with ajv: what
// the tests hold every command's envelope to, and what a consumer of the file can hold it to.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** The schema file. */
export const ENVELOPE_SCHEMA_PATH = new URL('./envelope.schema.json', import.meta.url);

let validate: (((value: unknown) => boolean) & { errors?: unknown }) | undefined;

/** The schema's complaints about an envelope, one line each; none when it is valid. */
export function envelopeSchemaErrors(value: unknown): string[] {
  if (!validate) {
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    addFormats.default(ajv);
    validate = ajv.compile(JSON.parse(readFileSync(ENVELOPE_SCHEMA_PATH, 'utf8')));
  }
  if (validate(value)) return [];
  return ((validate.errors ?? []) as { instancePath: string; message?: string }[]).map(
    (error) => `${error.instancePath || '/'} ${error.message ?? 'invalid'}`,
  );
}
