/** Describes where and with what a benchmark ran, for the report. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
}

export function describeMachine(nodeVersion: string): MachineInfo {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: os.totalmem() / 1024 ** 3,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: nodeVersion,
  };
}

/** The installed version of a package, read from its package.json under `nodeModules`. */
export function packageVersion(nodeModules: string, name: string): string {
  try {
    const manifest = JSON.parse(readFileSync(path.join(nodeModules, name, 'package.json'), 'utf8')) as { version?: string };
    return manifest.version ?? 'unknown';
  } catch {
    return 'not installed';
  }
}

/** Short commit id of the checkout, with "+dirty" when it has uncommitted changes. */
export function gitRevision(cwd: string): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${commit}+dirty` : commit;
  } catch {
    return 'unknown';
  }
}
