import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from '@jest/globals';
import { machineEnv } from '../support/example-project.ts';

// What `npm install` prints with the project's .npmrc, on the machine's npm (which runs on the
// machine's Node 20): the Node 24 binary's install step says it is running, while the dependencies'
// engine warnings (EBADENGINE, for packages that need Node 22) stay hidden. A small project with the
// project's .npmrc, allowScripts and engines, and three of its packages: the `node` binary (whose
// install script runs), got (which needs Node 22) and esbuild (whose install script is blocked).

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const project = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: Record<string, string>;
  allowScripts: Record<string, boolean>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const machinePath = (process.env.PATH ?? '').split(':').filter((dir) => !dir.includes('node_modules')).join(':');

let folder: string | undefined;
afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe('npm install with the project’s .npmrc', () => {
  it('shows the Node binary being installed, and no engine warning', async () => {
    folder = mkdtempSync(join(tmpdir(), 'install-output-'));
    writeFileSync(join(folder, 'package.json'), JSON.stringify({
      name: 'install-output',
      version: '1.0.0',
      private: true,
      engines: project.engines,
      allowScripts: project.allowScripts,
      dependencies: { got: project.dependencies.got, node: project.dependencies.node },
      devDependencies: { esbuild: project.devDependencies.esbuild },
    }));
    copyFileSync(join(ROOT, '.npmrc'), join(folder, '.npmrc'));
    const { stdout, stderr } = await promisify(execFile)('npm', ['install', '--prefer-offline'], { cwd: folder, env: { ...machineEnv(), PATH: machinePath } });
    // The counts and times vary with the registry's answers and the machine.
    expect({ stdout: stdout.replace(/^added \d+ packages in [\d.]+m?s$/gm, 'added (n) packages in (time)'), stderr }).toEqual({
      stdout: `\n> node@${project.dependencies.node} preinstall\n> node installArchSpecificPackage\n\n\nadded (n) packages in (time)\n\nadded (n) packages in (time)\n`,
      stderr: '',
    });
  }, 180_000);
});
