/** One subcommand of kgate: its usage text and its entry point. */
export interface Command {
  /** The usage text printed by `kgate <name> --help`. */
  usage: string;
  /** Runs the command; resolves to the exit code. */
  run(argv: string[]): Promise<number>;
}
