import { ROLES, roleOf } from '../../contracts/coverage/classes.ts';
import { type CoverageItem, coverageItems } from '../../contracts/coverage/items.ts';
import { OPERATION_IDS, OPERATIONS } from '../../openapi/spec.ts';
import { EXIT, noPositionals, option, parseCommandArgs } from '../door/args.ts';
import type { Command } from '../door/command.ts';
import { openDoor } from '../door/door.ts';
import { JSON_USAGE, printJson } from '../door/output.ts';
import { sharedOptions } from '../door/vocabulary.ts';

const USAGE = `usage: kgate coverage [--base-url URL] [--config FILE] [--operations ids] [--kind cells|inputs] [--json]

Prints the items of the coverage model: everything kgate conform can judge. A cell is one check
on one operation (the operation x check matrix); an input item is one class of value of one input of
one operation, from the grammar of the input (RFC 3986 for URLs and query components, BCP 47 for
markets, RFC 3339 for dates, the expression grammar of facts.md, the boundaries of every number,
the values real clients send). A valid class must be answered, an invalid one rejected, none a 5xx,
and every answer is judged by every property that applies.

  --base-url     the target the model is listed for (else KGATE_BASE_URL, else baseUrl of the
                 configuration file, else the embedded reference server); nothing is sent to it
  --config       configuration file (default: kgate.config.json, .yaml or .yml in the working directory)
  --operations   comma-separated operation ids (default all ${OPERATION_IDS.length}): ${OPERATION_IDS.join(', ')}
  --kind         only the cells, or only the input items
  --json         print one JSON object: command, verdict and exitCode, then counts and items
${JSON_USAGE}

exit codes: 0 printed, 2 bad usage`;

const OPTIONS = {
  ...sharedOptions('base-url', 'config'),
  operations: option.list('operation ids', OPERATION_IDS),
  kind: option.choice(['cells', 'inputs'] as const),
  json: option.flag(),
};

/** How many items of each kind and intent a list holds. */
export function countItems(items: readonly CoverageItem[]): {
  items: number;
  cells: number;
  inputs: number;
  valid: number;
  invalid: number;
  open: number;
} {
  const of = (intent: string) => items.filter((item) => item.intent === intent).length;
  return {
    items: items.length,
    cells: items.filter((item) => item.kind === 'cell').length,
    inputs: items.filter((item) => item.kind === 'input').length,
    valid: of('valid'),
    invalid: of('invalid'),
    open: of('open'),
  };
}

/** The items as text: per operation its cells, then each input with its classes by intent. */
export function renderCoverage(items: readonly CoverageItem[]): string {
  const counts = countItems(items);
  const lines = [
    `kgate coverage: ${counts.items} items: ${counts.cells} cells (operation x check), ${counts.inputs} input items (${counts.valid} valid, ${counts.invalid} invalid, ${counts.open} open classes)`,
  ];
  for (const op of OPERATIONS) {
    const own = items.filter((item) => item.operationId === op.operationId);
    if (own.length === 0) continue;
    lines.push('', `${op.label} (${op.operationId})`);
    const cells = own.filter((item) => item.kind === 'cell').map((item) => item.check);
    if (cells.length > 0) lines.push(`  cells: ${cells.join(', ')}`);
    const inputs = [...new Set(own.filter((item) => item.kind === 'input').map((item) => item.input!))];
    for (const input of inputs) {
      const classes = own.filter((item) => item.input === input);
      const role = roleOf(op.operationId, input, op.method);
      const byIntent = (['valid', 'invalid', 'open'] as const)
        .map((intent) => [intent, classes.filter((item) => item.intent === intent).map((item) => item.class)] as const)
        .filter(([, names]) => names.length > 0)
        .map(([intent, names]) => `${intent} ${names.join(', ')}`);
      lines.push(`  ${input}${role ? ` (${ROLES[role]!.grammar})` : ''}: ${byIntent.join('; ')}`);
    }
  }
  return lines.join('\n');
}

/** `kgate coverage`: prints the items of the coverage model. */
export const command: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv) {
    const parsed = parseCommandArgs(argv, OPTIONS, 'coverage');
    noPositionals(parsed.positionals, 'coverage');
    const given = parsed.options;
    // The model is the interface's; the door names the target it is listed for, and sends nothing.
    const door = openDoor({ command: 'coverage', sends: false }, parsed);
    await door.close();
    const operations = given.operations;
    const kind = given.kind;
    const items = coverageItems().filter(
      (item) =>
        (!operations || operations.includes(item.operationId)) &&
        (kind === undefined || (kind === 'cells' ? item.kind === 'cell' : item.kind === 'input')),
    );
    if (given.json === true) printJson('coverage', EXIT.ok, { counts: countItems(items), items });
    else console.log(renderCoverage(items));
    return EXIT.ok;
  },
};
