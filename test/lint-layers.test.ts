import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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

  it('refuses an import of the embedded sandbox below the composition, and lets the composition start it', async () => {
    expect(await messagesFor('src/settings/settings.ts', "import { SANDBOX_SETTINGS } from '../sandbox/settings.ts';\nexport const names = Object.keys(SANDBOX_SETTINGS);\n")).toEqual([
      "'../sandbox/settings.ts' import is restricted from being used by a pattern. src/ is layered (docs/architecture.md): the kernel (configuration, errors, logs, client text, dates, areas, execution) may not import the embedded sandbox (sandbox/); only the composition starts it.",
    ]);
    expect(await messagesFor('src/connections/example.ts', "import type { Sandbox } from '../../sandbox/index.ts';\nexport type S = Sandbox;\n")).toEqual([
      "'../../sandbox/index.ts' import is restricted from being used by a pattern. src/ is layered (docs/architecture.md): paging (src/connections/) may not import the embedded sandbox (sandbox/); only the composition starts it.",
    ]);
    expect(await messagesFor('src/process/start.ts', "import type { Sandbox } from '../sandbox/index.ts';\nexport type S = Sandbox;\n")).toEqual([]);
  });

  it('refuses an import circle', async () => {
    // request/scope.ts is imported by errors.ts: errors.ts importing it back would close a circle, were it allowed.
    const messages = await messagesFor('src/request/scope.ts', "import { ErrorCode } from '../errors.ts';\nexport const code = ErrorCode.NOT_FOUND;\n");
    expect(messages).toContain('Dependency cycle detected');
  });
});

describe('import circles in src/, type imports included', () => {
  // import-x/no-cycle follows value imports only (an erased `import type` cannot run a half-initialised
  // module), but a circle of types still ties two modules into one: neither can be read, moved or
  // tested without the other. So every import counts here.
  it('finds none', () => {
    const sourceDir = fileURLToPath(new URL('../src/', import.meta.url));
    const files = readdirSync(sourceDir, { recursive: true, encoding: 'utf8' }).filter((file) => /\.(ts|js)$/.test(file) && !file.startsWith('generated') && !file.endsWith('.d.ts')).map((file) => path.join(sourceDir, file));
    const imports = new Map(files.map((file) => {
      const text = readFileSync(file, 'utf8');
      const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.[^']+)'/g)].map((match) => path.resolve(path.dirname(file), match[1]!));
      return [file, specifiers.filter((target) => files.includes(target))];
    }));
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.push([...trail.slice(trail.indexOf(file)), file].map((one) => path.relative(sourceDir, one)).join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const target of imports.get(file)!) visit(target, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(files.length).toBeGreaterThan(100);
    expect(circles).toEqual([]);
  });
});
