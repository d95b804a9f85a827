import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

// The README is the two-minute start and docs/README.md the index of everything else: the README
// stays short, every page of docs/ is in the index, and every relative link of the README and of
// docs/ reaches a file that exists and, with a #fragment, a heading of that file.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = join(ROOT, 'docs');
const PAGES = readdirSync(DOCS).filter((name) => name.endsWith('.md')).sort();
const FILES = [join(ROOT, 'README.md'), ...PAGES.map((name) => join(DOCS, name))];

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
const slug = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');

/** The anchors of a Markdown file: its headings' (a repeated one gets -1, -2 …), outside code blocks. */
function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(heading!.replace(/`/g, ''));
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The relative links of a Markdown file, outside code blocks and inline code. */
function linksOf(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '').replace(/``[^`]*``|`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z][a-z+.-]*:/i.test(target));
}

describe('the README', () => {
  it('is at most 150 lines', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length - 1).toBeLessThanOrEqual(150);
  });

  it('links the index of docs/', () => {
    expect(linksOf(join(ROOT, 'README.md'))).toContain('docs/README.md');
  });
});

describe('docs/README.md', () => {
  it('links every page of docs/', () => {
    const linked = new Set(linksOf(join(DOCS, 'README.md')).map((target) => target.split('#')[0]));
    expect(PAGES.filter((page) => page !== 'README.md' && !linked.has(page))).toEqual([]);
  });
});

describe.each(FILES.map((file) => [relative(ROOT, file), file]))('the links of %s', (_name, file) => {
  it('each reach a file, and a heading of it', () => {
    const broken = linksOf(file).filter((target) => {
      const [path, fragment] = target.split('#') as [string, string | undefined];
      const resolved = path === '' ? file : join(dirname(file), decodeURI(path));
      if (!existsSync(resolved)) return true;
      if (fragment === undefined || statSync(resolved).isDirectory() || !resolved.endsWith('.md')) return false;
      return !anchorsOf(resolved).has(fragment);
    });
    expect(broken).toEqual([]);
  });
});
