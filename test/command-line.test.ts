import { describe, expect, it } from '@jest/globals';
import { readCommandLine, type CommandHelp } from '../src/settings/command-line.ts';
import { captureCommandOutput, exitOf } from './support/command-exit.ts';

const CONFIG = {
  options: {
    out: { type: 'string', default: 'dist' },
    runs: { type: 'string' },
    watch: { type: 'boolean', default: false },
    verbose: { type: 'boolean', short: 'v' },
  },
  allowPositionals: false,
} as const;

const HELP: CommandHelp<'out' | 'runs' | 'watch' | 'verbose'> = {
  command: 'npm run bundle',
  summary: 'Bundles the gateway.',
  options: {
    out: { text: 'where the bundle goes', value: 'DIR' },
    runs: { text: 'how many runs' },
    watch: { text: 'rebuild on change' },
    verbose: { text: 'say more' },
  },
  examples: ['npm run bundle -- --out build', 'npm run bundle -- --watch   # while editing'],
};

const output = captureCommandOutput();

/** The exit code the command line ended with. */
describe('readCommandLine', () => {
  it('returns the options read, with their defaults', () => {
    expect(readCommandLine(CONFIG, HELP, ['--runs', '3', '-v']).values).toEqual({ out: 'dist', runs: '3', watch: false, verbose: true });
    expect(readCommandLine(CONFIG, HELP, []).values).toEqual({ out: 'dist', watch: false });
    expect([output.stdout, output.stderr]).toEqual(['', '']);
  });

  it('returns positionals when the command takes them', () => {
    expect(readCommandLine({ allowPositionals: true, options: {} }, { ...HELP, options: {}, positionals: '[DIR]' }, ['a', 'b']).positionals).toEqual(['a', 'b']);
  });

  it('prints the help and exits 0 on --help or -h', () => {
    expect(exitOf(() => readCommandLine(CONFIG, HELP, ['--help']))).toBe(0);
    expect(output.stdout).toBe(
      [
        'Usage: npm run bundle -- [options]',
        '',
        'Bundles the gateway.',
        '',
        'Options:',
        '  --out DIR     where the bundle goes (default: dist)',
        '  --runs VALUE  how many runs',
        '  --watch       rebuild on change',
        '  --verbose     say more',
        '  --help, -h    print this help and exit',
        '',
        'Example:',
        '  npm run bundle -- --out build',
        '  npm run bundle -- --watch   # while editing',
        '',
      ].join('\n'),
    );
    output.stdout = '';
    expect(exitOf(() => readCommandLine(CONFIG, HELP, ['--runs', '2', '-h']))).toBe(0);
    expect(output.stdout).toMatch(/^Usage: /);
  });

  it('shows positionals and text after the options, and a command not run through npm as it is', () => {
    expect(exitOf(() => readCommandLine({ options: {}, allowPositionals: true }, { command: 'node dist/main.js', positionals: '[OUTDIR]', summary: 'S.', options: {}, examples: ['x'], more: 'Settings:\n  A' }, ['-h']))).toBe(0);
    expect(output.stdout).toBe(['Usage: node dist/main.js [options] [OUTDIR]', '', 'S.', '', 'Options:', '  --help, -h  print this help and exit', '', 'Example:', '  x', '', 'Settings:\n  A', ''].join('\n'));
  });

  it.each([
    [['--nope'], 'unknown option --nope'],
    [['-x'], 'unknown option -x'],
    [['--runs'], 'bad option --runs <value>'],
    [['stray'], 'unexpected argument stray'],
    [['--watch=yes'], 'bad option --watch'],
  ])('refuses %j in one line on output.stderr, exit 2', (args, problem) => {
    expect(exitOf(() => readCommandLine(CONFIG, HELP, args))).toBe(2);
    expect(output.stderr).toBe(`npm run bundle: ${problem} (npm run bundle -- --help lists the options)\n`);
    expect(output.stdout).toBe('');
  });
});
