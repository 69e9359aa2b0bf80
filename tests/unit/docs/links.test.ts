/**
 * The README and the pages in docs/ point at things that exist: every relative link (and its
 * #anchor, when it names a heading of a Markdown page), and every repository path named in
 * backticks, such as `src/core/pipeline.ts` or `scenes/humanoid.json`. Paths with placeholders
 * or globs (`scenes/<name>.json`, `tests/unit/rapier-*.test.ts`) are skipped. The README stays a
 * page a user reads through: at most 200 lines.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(__dirname, '../../..');
const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const read = (page: string) => readFileSync(join(root, page), 'utf8');

/** Where backticked repository paths start. */
const PATH_PREFIXES = ['src/', 'systems/', 'components/', 'scenes/', 'tests/', 'docs/', 'bin/', 'scripts/', '.ci/'];

/** The text without its fenced code blocks (their backticks and brackets are code, not links). */
function prose(text: string): string {
  return text.replace(/^ {0,3}(```|~~~)[^\n]*\n[\s\S]*?^ {0,3}\1[^\n]*$/gm, '');
}

/** Relative link targets: [text](target) and ![alt](target), without web addresses. */
function relativeLinks(text: string): string[] {
  const out: string[] = [];
  for (const m of prose(text).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    out.push(target);
  }
  return out;
}

/** Repository paths named in inline code spans. */
function backtickedPaths(text: string): string[] {
  const out: string[] = [];
  for (const m of prose(text).matchAll(/`([^`]+)`/g)) {
    for (let word of m[1]!.split(/\s+/)) {
      word = word.replace(/^[("'[]+/, '').replace(/[),.;:"'\]]+$/, '');
      if (!PATH_PREFIXES.some((p) => word.startsWith(p))) continue;
      if (/[<>*{}$…?&=]|\.\.\./.test(word)) continue; // a placeholder, a glob or a query
      out.push(word);
    }
  }
  return out;
}

/** GitHub's anchors of a page's headings (lower case, punctuation dropped, spaces to hyphens). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(text).matchAll(/^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$/gm)) {
    const base = m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\p{M} _-]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

describe('documentation links', () => {
  it('finds the pages, their links and their paths', () => {
    expect(pages).toContain('docs/README.md');
    expect(relativeLinks(read('README.md')).length).toBeGreaterThan(5);
    expect(backtickedPaths(read('README.md'))).toContain('src/core/pipeline.ts');
    // the extraction itself
    expect(backtickedPaths('see `npx physik run scenes/arm.json --json`, `scenes/<name>.json` and `tests/unit/rapier-*.test.ts`'))
      .toEqual(['scenes/arm.json']);
    expect(relativeLinks('[a](docs/x.md#y) ![b](c.png) [web](https://example.com)\n```\n[no](link)\n```')).toEqual(['docs/x.md#y', 'c.png']);
    expect([...anchors('# Title\n## Where this differs, and `why`\n## Title')]).toEqual(['title', 'where-this-differs-and-why', 'title-1']);
  });

  it('keeps the README within 200 lines', () => {
    const lines = read('README.md').replace(/\n$/, '').split('\n').length;
    expect(lines).toBeLessThanOrEqual(200);
  });

  for (const page of pages) {
    it(`${page}: every relative link and anchor exists`, () => {
      const missing: string[] = [];
      for (const link of relativeLinks(read(page))) {
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path === '' ? join(root, page) : resolve(dirname(join(root, page)), decodeURIComponent(path));
        if (!existsSync(target)) { missing.push(`${link} (no ${relative(root, target)})`); continue; }
        if (anchor && target.endsWith('.md') && !anchors(readFileSync(target, 'utf8')).has(anchor)) {
          missing.push(`${link} (no heading #${anchor} in ${relative(root, target)})`);
        }
      }
      expect(missing).toEqual([]);
    });

    it(`${page}: every backticked repository path exists`, () => {
      const missing = backtickedPaths(read(page)).filter((p) => !existsSync(join(root, p)));
      expect(missing).toEqual([]);
    });
  }
});

/** Every source file whose comments may name repository paths. */
function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) { if (entry.name !== 'fixtures' && entry.name !== 'node_modules') walk(path); }
      else if (/\.(ts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
    }
  };
  for (const dir of ['components', 'src', 'systems', 'tests', 'scripts', 'bin']) walk(dir);
  return out.sort();
}

/**
 * Repository paths named in a file's comments (block and line comments; a path in a string is
 * data, which tests use to name files that must not exist).
 */
function commentedPaths(text: string): string[] {
  const comments = [...text.matchAll(/\/\*[\s\S]*?\*\/|(?<![:'"`\\])\/\/[^\n]*/g)].map((m) => m[0]).join('\n');
  const out: string[] = [];
  const starts = PATH_PREFIXES.map((p) => p.replace('.', '\\.')).join('|');
  for (const m of comments.matchAll(new RegExp(`(?<![\\w./-])((?:${starts})[\\w./-]*[\\w])`, 'g'))) {
    const path = m[1]!;
    if (/[<>*{}]/.test(path)) continue;
    out.push(path);
  }
  return out;
}

describe('source comments', () => {
  it('every repository path named in a comment exists (a file may be named without its .ts)', () => {
    const missing: string[] = [];
    for (const file of sourceFiles()) {
      for (const path of commentedPaths(readFileSync(join(root, file), 'utf8'))) {
        if (!existsSync(join(root, path)) && !existsSync(join(root, `${path}.ts`))) missing.push(`${file}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('no comment points outside the repository', () => {
    const outside: string[] = [];
    for (const file of sourceFiles()) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const m of text.matchAll(/shared\/reference|DESIGN\.md|design notes|\bissue \d+/gi)) {
        if (file === 'tests/unit/docs/links.test.ts') continue;
        outside.push(`${file}:${text.slice(0, m.index).split('\n').length}: ${m[0]}`);
      }
    }
    expect(outside).toEqual([]);
  });
});
