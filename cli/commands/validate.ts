import { readFileSync } from 'node:fs';
import { OPERATION_IDS } from '../../openapi/spec.ts';
import { validateResponse } from '../../openapi/validator.ts';
import { EXIT, option, parseCommandArgs, RuleBroken, UsageError } from '../door/args.ts';
import type { Command } from '../door/command.ts';
import { JSON_USAGE, printJson } from '../door/output.ts';

const USAGE = `usage: kgate validate --operation <operationId> --status <code> [--content-type TYPE] [--strict] [--json] <file.json>

Checks a recorded response body against the spec. A documented field that the real service
left out (an expected field, such as aborted) is a warning when missing, not an error.

  --operation      operationId, one of: ${OPERATION_IDS.join(', ')}
  --status         HTTP status of the response (100-599)
  --content-type   media type of the recorded response (default application/json)
  --strict         warnings fail too (exit 1)
  --json           print one JSON object: the result after "command", "verdict" and "exitCode";
                   a stop (bad usage, unreadable file) too
${JSON_USAGE}

Use - as the file to read standard input.
exit codes: 0 valid (warnings allowed unless --strict), 1 invalid, or warnings under --strict,
2 bad usage (unknown operationId, unreadable file, not JSON)`;

/** Result of `kgate validate`, as printed with --json. */
export interface ValidateOutput {
  operationId: string;
  status: number;
  contentType: string;
  file: string;
  /** The body matches the spec: no errors (warnings allowed). */
  valid: boolean;
  documented: boolean;
  /** Whether --strict was given. */
  strict: boolean;
  /** The verdict behind the exit code: valid, and without warnings under --strict. */
  passed: boolean;
  errors: Finding[];
  /** Expected fields that are missing. */
  warnings: Finding[];
  /** Errors and warnings counted beyond the listed ones (a body with more than the validator lists). */
  unlisted?: { errors: number; warnings: number };
}

/** One error or warning as printed: where, which rule, and the sentence. */
interface Finding {
  pointer: string;
  keyword: string;
  message: string;
}

function readBody(file: string, contentType: string): unknown {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`kgate validate: cannot read '${file}' (${reason})`);
  }
  if (!/json/i.test(contentType)) return text;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`kgate validate: '${file}' is not JSON (${(error as Error).message})`);
  }
}

/** The options of `kgate validate`. */
const OPTIONS = {
  operation: option.choice(OPERATION_IDS),
  status: option.whole(100, 599, { rule: 'an HTTP status code from 100 to 599' }),
  'content-type': option.text('a media type such as application/json', 'json', (raw) => {
    if (!/^[\w.+-]+\/[\w.+-]+(\s*;.*)?$/.test(raw.trim())) throw new RuleBroken('not type/subtype');
    return raw.trim();
  }),
  strict: option.flag(),
  json: option.flag(),
};

/** `kgate validate`: checks a recorded body against the spec. */
export const command: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv) {
    const { positionals, options: given } = parseCommandArgs(argv, OPTIONS, 'validate');
    const operationId = given.operation;
    if (!operationId)
      throw new UsageError('option --operation is required (an operationId)', {
        option: '--operation',
        rule: 'is required: an operationId',
      });
    const status = given.status;
    if (status === undefined)
      throw new UsageError('option --status is required (an HTTP status code)', {
        option: '--status',
        rule: 'is required: an HTTP status code',
      });
    if (positionals.length !== 1) {
      throw new UsageError(`takes exactly one file (or - for standard input), got ${positionals.length}`, {
        rule: 'takes one file',
      });
    }
    const file = positionals[0] as string;
    const contentType = given['content-type'] ?? 'application/json';
    const body = readBody(file, contentType);
    const strict = given.strict === true;
    const result = validateResponse(operationId, status, contentType, body);
    const passed = result.valid && !(strict && result.warnings.length + (result.unlisted?.warnings ?? 0) > 0);
    const finding = ({ pointer, keyword, message }: Finding): Finding => ({ pointer, keyword, message });
    const output: ValidateOutput = {
      operationId,
      status,
      contentType,
      file,
      valid: result.valid,
      documented: result.documented,
      strict,
      passed,
      errors: result.errors.map(finding),
      warnings: result.warnings.map(finding),
      ...(result.unlisted ? { unlisted: result.unlisted } : {}),
    };
    if (given.json) {
      printJson('validate', passed ? EXIT.ok : EXIT.failed, output);
      return passed ? EXIT.ok : EXIT.failed;
    }
    const target = `${operationId} ${status} ${contentType}`;
    const warnings = result.warnings.length + (result.unlisted?.warnings ?? 0);
    const warned = `${warnings} warning(s)`;
    let headline = `valid: ${file} matches ${target}`;
    if (!result.valid) headline = `invalid: ${file} does not match ${target}`;
    else if (warnings > 0 && strict) headline = `invalid under --strict: ${file} has ${warned} against ${target}`;
    else if (warnings > 0)
      headline = `valid with ${warned}: ${file} matches ${target}; expected fields are missing (errors only under --strict)`;
    console.log(headline);
    for (const error of result.errors) console.log(`  ${error.pointer || '/'}  ${error.keyword}: ${error.message}`);
    for (const warning of result.warnings) console.log(`  warning: ${warning.message}`);
    if (result.unlisted)
      console.log(
        `  and ${result.unlisted.errors} more error(s), ${result.unlisted.warnings} more warning(s), counted but not listed`,
      );
    return passed ? EXIT.ok : EXIT.failed;
  },
};
