import type { OptionTable } from './args.ts';

/** A subcommand with a usage text and options of its own (`kgate drift live`, `kgate report merge`). */
export interface Subcommand {
  /** The usage text printed by `kgate <name> <subcommand> --help`. */
  usage: string;
  /** Its options (every one is validated from this table, and driven by the tests with a bad value). */
  options: OptionTable;
}

/** One subcommand of kgate: its usage text, its options and its entry point. */
export interface Command {
  /** The usage text printed by `kgate <name> --help`. */
  usage: string;
  /** Its options, when it takes options without a subcommand first. */
  options?: OptionTable;
  /** Its subcommands, each with its own usage and options. */
  subcommands?: Record<string, Subcommand>;
  /** Runs the command; resolves to the exit code. */
  run(argv: string[]): Promise<number>;
}
