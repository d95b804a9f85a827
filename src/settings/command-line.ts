import { parseArgs, type ParseArgsConfig } from 'node:util';

// The command line of every command of the project (the gateway, the scripts, the benchmarks):
// `--help` prints what the command does, its options and an example; a bad option is one line
// on stderr (exit 2), never a stack.

/** What `--help` prints. Options are described in the order given; `--help` is added. */
export interface CommandHelp<Name extends string> {
  /** The command as typed: `npm run supergraph`, `node dist/main.js`. */
  command: string;
  /** Its arguments after the options, as the usage line shows them (`[OUTDIR]`). */
  positionals?: string;
  /** What it does: a few lines. */
  summary: string;
  /** One line per option; `value` names a string option's value (`--out FILE`). */
  options: Record<Name, { text: string; value?: string }>;
  /** Commands as a user would type them, each with an optional comment. */
  examples: string[];
  /** Text after the options (e.g. the gateway's settings). */
  more?: string;
}

const HELP = { help: { type: 'boolean', short: 'h' } } as const;

function helpText<Name extends string>(help: CommandHelp<Name>, config: ParseArgsConfig): string {
  const rows: [string, string][] = Object.entries<{ text: string; value?: string }>(help.options).map(([name, option]) => {
    const descriptor = config.options?.[name];
    const shown = `--${name}${descriptor?.type === 'string' ? ` ${option.value ?? 'VALUE'}` : ''}`;
    const fallback = descriptor?.default;
    return [shown, `${option.text}${fallback !== undefined && fallback !== false ? ` (default: ${String(fallback)})` : ''}`];
  });
  rows.push(['--help, -h', 'print this help and exit']);
  const width = Math.max(...rows.map(([left]) => left.length));
  return [
    `Usage: ${withArguments(help.command)} [options]${help.positionals ? ` ${help.positionals}` : ''}`,
    '',
    help.summary,
    '',
    'Options:',
    ...rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`),
    '',
    'Example:',
    ...help.examples.map((example) => `  ${example}`),
    ...(help.more === undefined ? [] : ['', help.more]),
    '',
  ].join('\n');
}

/** npm passes a script's arguments after `--`. */
const withArguments = (command: string) => (command.startsWith('npm ') ? `${command} --` : command);

/** The option an error of parseArgs is about, as the user typed it. */
function optionOf(message: string): string {
  return /'(-[^']*)'/.exec(message)?.[1] ?? /Unexpected argument '([^']*)'/.exec(message)?.[1] ?? message;
}

/**
 * parseArgs with `--help` and one-line errors: prints the help and exits 0 on `--help`, prints one
 * line and exits 2 on an unknown option, a missing value or an unexpected argument.
 */
export function readCommandLine<const T extends ParseArgsConfig>(config: T, help: CommandHelp<Extract<keyof NonNullable<T['options']>, string>>, args = process.argv.slice(2)) {
  const full = { ...config, args, options: { ...config.options, ...HELP }, strict: true } as T;
  let parsed: ReturnType<typeof parseArgs<T>>;
  try {
    parsed = parseArgs<T>(full);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (!code.startsWith('ERR_PARSE_ARGS_')) throw error;
    const command = help.command;
    const what = code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? 'unknown option' : code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' ? 'unexpected argument' : 'bad option';
    process.stderr.write(`${command}: ${what} ${optionOf((error as Error).message)} (${withArguments(command)} --help lists the options)\n`);
    process.exit(2);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(helpText(help, config));
    process.exit(0);
  }
  return parsed;
}
