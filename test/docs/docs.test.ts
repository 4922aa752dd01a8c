// The pages users and operators read render on any Markdown viewer and lead nowhere outside the
// repository: every table has a header, a delimiter row and rows of the header's column count
// (GitHub drops the surplus cells of a longer row and shows a row without a header as text),
// and every link is relative and reaches a file (and heading) that exists here.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { headingSlug } from '../../api/docs/docs-pages';

const repo = path.resolve(__dirname, '../..');

interface Line {
  number: number;
  text: string;
}

/** The lines outside fenced code blocks, with their numbers. */
function proseLines(markdown: string): Line[] {
  const lines: Line[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, i) => {
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence === undefined && opening) fence = opening;
    else if (fence !== undefined && opening !== undefined && opening[0] === fence[0] && opening.length >= fence.length && text.trim() === opening) fence = undefined;
    else if (fence === undefined) lines.push({ number: i + 1, text });
  });
  return lines;
}

/** A table row's cells: split at every pipe not escaped with a backslash (code spans included, as GFM does). */
function cells(row: string): string[] {
  const parts = row.trim().split(/(?<!\\)\|/);
  if (parts[0]?.trim() === '') parts.shift();
  if (parts.at(-1)?.trim() === '') parts.pop();
  return parts;
}

function tableProblems(markdown: string): string[] {
  const problems: string[] = [];
  const lines = proseLines(markdown);
  const isRow = (line: Line | undefined) => line !== undefined && /^ {0,3}\|/.test(line.text);
  for (let i = 0; i < lines.length; i++) {
    if (!isRow(lines[i]) || (i > 0 && isRow(lines[i - 1]) && lines[i - 1]!.number === lines[i]!.number - 1)) continue;
    const block: Line[] = [];
    for (let j = i; isRow(lines[j]) && (j === i || lines[j]!.number === lines[j - 1]!.number + 1); j++) block.push(lines[j]!);
    const [header, delimiter, ...rows] = block;
    const columns = cells(header!.text).length;
    if (!delimiter || !cells(delimiter.text).every((cell) => /^\s*:?-+:?\s*$/.test(cell))) {
      problems.push(`line ${header!.number}: a table row without a header and delimiter row above it`);
      continue;
    }
    if (cells(delimiter.text).length !== columns) problems.push(`line ${delimiter.number}: ${cells(delimiter.text).length} delimiter cells for ${columns} columns`);
    for (const row of rows) {
      const count = cells(row.text).length;
      if (count !== columns) problems.push(`line ${row.number}: ${count} cells in a table of ${columns} columns`);
    }
  }
  return problems;
}

function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const base = headingSlug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

/** Links of a page at `file` (relative to the repository), and URLs GitHub would turn into links. */
function linkProblems(markdown: string, file: string, exists = (p: string) => existsSync(path.join(repo, p))): string[] {
  const problems: string[] = [];
  for (const { number, text } of proseLines(markdown)) {
    const prose = text.replace(/(`+)[^`]*?\1/g, '');
    const targets = [...prose.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g), ...prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)/g)].map((m) => m[1]!);
    for (const bare of prose.matchAll(/\b(?:https?:\/\/|www\.)[^\s)>]*/g)) {
      if (!targets.some((t) => bare[0].includes(t) && t !== '')) problems.push(`line ${number}: ${bare[0]} links outside the repository`);
    }
    for (const target of targets) {
      if (/^([a-z][a-z0-9+.-]*:|\/\/)/i.test(target)) {
        problems.push(`line ${number}: ${target} links outside the repository`);
        continue;
      }
      const [pathPart = '', anchor] = target.split('#');
      const resolved = pathPart === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURIComponent(pathPart)));
      if (resolved.startsWith('../') || path.posix.isAbsolute(resolved)) problems.push(`line ${number}: ${target} leaves the repository`);
      else if (!exists(resolved)) problems.push(`line ${number}: ${target} does not exist`);
      else if (anchor && resolved.endsWith('.md') && !anchors(readFileSync(path.join(repo, resolved), 'utf8')).has(anchor)) {
        problems.push(`line ${number}: ${target} names no heading of ${resolved}`);
      }
    }
  }
  return problems;
}

describe('documentation', () => {
  describe('the checker', () => {
    it('finds a row with more or fewer cells than its header, and rows with no header', () => {
      const page = ['| a | b |', '|---|---|', '| 1 | 2 |', '| 1 | 2 | 3 |', '| 1 |', '', 'text', '| orphan | row |'].join('\n');
      assert.deepEqual(tableProblems(page), [
        'line 4: 3 cells in a table of 2 columns',
        'line 5: 1 cells in a table of 2 columns',
        'line 8: a table row without a header and delimiter row above it',
      ]);
    });

    it('counts an escaped pipe as text, an unescaped one in code as a column, and skips fenced code', () => {
      assert.deepEqual(tableProblems('| a | b |\n|:--|--:|\n| `x\\|y` | 2 |\n\n```\n| not | a | table |\n```'), []);
      assert.deepEqual(tableProblems('| a | b |\n|---|---|\n| `x|y` | 2 |'), ['line 3: 3 cells in a table of 2 columns']);
    });

    it('finds links that leave the repository or reach nothing, and passes good ones', () => {
      const page = [
        'See [the spec](https://example.com/spec), <http://example.org> and www.example.net.',
        'Also [up](../../../outside.md), [gone](missing.md), [cli](cli.md#the-kasi-command), [bad anchor](cli.md#nowhere).',
        '`http://127.0.0.1:3000` in code is no link; [mail](mailto:ops@example.com).',
      ].join('\n');
      assert.deepEqual(linkProblems(page, 'docs/reference/page.md'), [
        'line 1: http://example.org links outside the repository',
        'line 1: www.example.net. links outside the repository',
        'line 1: https://example.com/spec links outside the repository',
        'line 2: ../../../outside.md leaves the repository',
        'line 2: missing.md does not exist',
        'line 2: cli.md#nowhere names no heading of docs/reference/cli.md',
        'line 3: mailto:ops@example.com links outside the repository',
      ]);
    });
  });

  const pages = [
    'README.md',
    ...readdirSync(path.join(repo, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).map((f) => `docs/${f.split(path.sep).join('/')}`),
    ...readdirSync(path.join(repo, 'bench')).filter((f) => f.endsWith('.md')).map((f) => `bench/${f}`),
    'sdk/README.md',
  ].sort();

  for (const page of pages) {
    it(`${page}: every table renders and every link stays in the repository`, () => {
      const markdown = readFileSync(path.join(repo, page), 'utf8');
      assert.deepEqual([...tableProblems(markdown), ...linkProblems(markdown, page)], []);
    });
  }
});
