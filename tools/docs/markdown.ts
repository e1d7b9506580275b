/**
 * Just enough Markdown for the docs checks (tools/docs-*.spec.ts): fenced code blocks, headings
 * and their anchors as GitHub makes them, and link targets outside code. No Markdown package is
 * installed, and these few rules are what the checks need.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export const ROOT = join(__dirname, '../..');

/** The Markdown the docs checks read: README, CHANGELOG, CONTRIBUTING and docs/ (recursive). */
export function documentationFiles(): string[] {
  const files = ['README.md', 'CHANGELOG.md', 'CONTRIBUTING.md'].map((name) => join(ROOT, name));
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.md')) files.push(path);
    }
  };
  walk(join(ROOT, 'docs'));
  return files;
}

export const repoPath = (path: string): string => relative(ROOT, path);

export interface CodeBlock {
  /** The fence's info string (`ts`, `bash`, ...), '' without one. */
  lang: string;
  /** The block's text, every line ending in a newline. */
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The line before the fence, trimmed (where a marker comment sits). */
  before: string;
}

interface Scanned {
  blocks: CodeBlock[];
  /** The lines outside fenced blocks ('' in their place, so line numbers stay). */
  prose: string[];
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)/;

function scan(markdown: string): Scanned {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  const prose: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (!open) {
      prose.push(lines[i]);
      continue;
    }
    const fence = open[1];
    const start = i;
    const body: string[] = [];
    prose.push('');
    for (i++; i < lines.length && !lines[i].trimStart().startsWith(fence); i++) {
      body.push(lines[i]);
      prose.push('');
    }
    if (i < lines.length) prose.push('');
    blocks.push({
      lang: open[2],
      code: body.map((line) => `${line}\n`).join(''),
      line: start + 1,
      before: (lines[start - 1] ?? '').trim(),
    });
  }
  return { blocks, prose };
}

export const codeBlocks = (markdown: string): CodeBlock[] => scan(markdown).blocks;

/** A heading's text as rendered: no inline code ticks, link targets, emphasis or HTML. */
function renderedText(heading: string): string {
  // Odd parts are code spans, kept as written (`__proto__` is no emphasis).
  return heading
    .split(/`([^`]*)`/)
    .map((part, index) =>
      index % 2 === 1
        ? part
        : part
            .replace(/<[^>]+>/g, '')
            .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
            .replace(/(^|\W)[*_]{1,3}(?=\S)|(?<=\S)[*_]{1,3}(?=\W|$)/g, '$1'),
    )
    .join('');
}

/**
 * GitHub's anchor for a heading (github-slugger): lower case, every character but letters,
 * digits, `_`, `-` and spaces dropped, spaces made `-`; a repeated anchor gets `-1`, `-2`, ...
 */
export function slug(heading: string): string {
  return renderedText(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a file offers: its headings' slugs (repeats numbered) and explicit ids. */
export function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const counts = new Map<string, number>();
  for (const line of scan(markdown).prose) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = slug(heading[1]);
      const seen = counts.get(base) ?? 0;
      counts.set(base, seen + 1);
      found.add(seen === 0 ? base : `${base}-${seen}`);
    }
    for (const id of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(id[1]);
  }
  return found;
}

export interface Link {
  target: string;
  line: number;
}

/** Inline links and images (`[text](target)`, `![alt](src)`) and reference definitions. */
export function links(markdown: string): Link[] {
  const found: Link[] = [];
  scan(markdown).prose.forEach((text, index) => {
    const line = text.replace(/`[^`]*`/g, '');
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      found.push({ target: match[1], line: index + 1 });
    }
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
    if (definition) found.push({ target: definition[1], line: index + 1 });
  });
  return found;
}
