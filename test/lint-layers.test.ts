import { describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';

// The layers of src/ (docs/architecture.md) and the absence of import circles are kept by lint:
// these are the rules failing on a violation and passing on the code as it is.

const eslint = new ESLint();

/** The messages lint gives `code` as the file `filePath` of src/. */
async function messagesFor(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((message) => message.ruleId === 'no-restricted-imports' || message.ruleId === 'import-x/no-cycle').map((message) => message.message);
}

describe('the layers of src/ in lint', () => {
  it('refuses an import from a layer above, a type import too, naming both layers', async () => {
    expect(await messagesFor('src/platform/example.ts', "import type { Budgets } from '../budgets/index.ts';\nexport type B = Budgets;\n")).toEqual([
      "'../budgets/index.ts' import is restricted from being used by a pattern. src/ is layered (docs/architecture.md): the platform seam (src/platform/) may not import budgets (src/budgets/), a layer above it.",
    ]);
    expect(await messagesFor('src/request/example.ts', "import { ErrorCode } from '../errors.ts';\nexport const code = ErrorCode.NOT_FOUND;\n")).toEqual([
      "'../errors.ts' import is restricted from being used by a pattern. src/ is layered (docs/architecture.md): request identity (src/request/) may not import the kernel (configuration, errors, logs, client text, dates, areas, execution), a layer above it.",
    ]);
  });

  it('lets a module import its own layer and the layers below', async () => {
    expect(await messagesFor('src/budgets/example.ts', "import { ErrorCode } from '../errors.ts';\nimport { refuse } from '../http/refusal.ts';\nimport { callerToken } from '../request/caller-token.ts';\nexport const all = [ErrorCode, refuse, callerToken];\n")).toEqual([]);
  });

  it('lets src/ below the composition import of sandbox/ only its setting table, which imports nothing', async () => {
    expect(await messagesFor('src/setting-typos.ts', "import { SANDBOX_SETTINGS } from '../sandbox/settings.ts';\nexport const all = SANDBOX_SETTINGS;\n")).toEqual([]);
    expect(await messagesFor('src/connections/example.ts', "import { startSandbox } from '../../sandbox/index.ts';\nexport const start = startSandbox;\n")).toEqual([
      "'../../sandbox/index.ts' import is restricted from being used by a pattern. src/ is layered (docs/architecture.md): paging (src/connections/) may import of sandbox/ only its setting table (sandbox/settings.ts).",
    ]);
    expect(await messagesFor('src/start.ts', "import { startSandbox } from '../sandbox/index.ts';\nexport const start = startSandbox;\n")).toEqual([]);
    expect(await messagesFor('sandbox/settings.ts', "import { ErrorCode } from '../src/errors.ts';\nexport const code = ErrorCode.NOT_FOUND;\n")).toEqual([
      "'../src/errors.ts' import is restricted from being used by a pattern. sandbox/settings.ts is imported by the kernel of src/ (docs/architecture.md): it imports nothing of the project.",
    ]);
  });

  it('refuses an import circle', async () => {
    // request/scope.ts is imported by errors.ts: errors.ts importing it back would close a circle, were it allowed.
    const messages = await messagesFor('src/request/scope.ts', "import { ErrorCode } from '../errors.ts';\nexport const code = ErrorCode.NOT_FOUND;\n");
    expect(messages).toContain('Dependency cycle detected');
  });
});
