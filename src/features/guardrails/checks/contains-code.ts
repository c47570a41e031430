/**
 * default.containsCode {format}: passes when the text contains code in `format` (a language name
 * such as python, javascript, typescript, java, sql, json, html, css, shell, go, rust, c, cpp, php;
 * common aliases like py, js, ts, sh, bash accepted). A fenced block labelled with that language
 * passes; otherwise unlabelled fenced blocks (or, without any fence, the whole text) are tested
 * with a heuristic for the language when there is one. Without `format`, any fenced block or any
 * heuristic match passes.
 * Reads the request text before the request and the response text after it.
 */
import { BOTH_PHASES, defineCheck, textFor } from '../check.js';
import { ParamReader } from '../params.js';

const ALIASES: Record<string, string> = {
  py: 'python',
  python3: 'python',
  js: 'javascript',
  node: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  ts: 'typescript',
  tsx: 'typescript',
  sh: 'shell',
  bash: 'shell',
  zsh: 'shell',
  console: 'shell',
  golang: 'go',
  rs: 'rust',
  'c++': 'cpp',
  cxx: 'cpp',
  htm: 'html',
  postgresql: 'sql',
  mysql: 'sql',
};

const HEURISTICS: Record<string, RegExp> = {
  python: /^\s*(?:def \w+\s*\(|class \w+\s*[:(]|import \w+|from [\w.]+ import )/m,
  javascript: /\bfunction\s*\w*\s*\(|\b(?:const|let|var)\s+\w+\s*=|console\.log\(|=>\s*[{(]/,
  typescript: /\binterface\s+\w+\s*\{|\btype\s+\w+\s*=|\b\w+\s*:\s*(?:string|number|boolean)\b/,
  java: /\b(?:public|private|protected)\s+(?:static\s+)?(?:final\s+)?[\w<>[\]]+\s+\w+\s*[({]/,
  sql: /\bSELECT\b[\s\S]+?\bFROM\b|\bINSERT\s+INTO\b|\bUPDATE\s+\w+\s+SET\b|\bDELETE\s+FROM\b|\bCREATE\s+TABLE\b/i,
  html: /<(?:html|head|body|div|span|p|a|ul|li|table|script|style)\b[^>]*>/i,
  css: /[\w.#:-]+\s*\{[^{}]*[\w-]+\s*:\s*[^{};]+;[^{}]*\}/,
  shell: /^\s*(?:\$ |#!\/(?:usr\/)?bin\/(?:env\s+)?(?:ba|z)?sh|sudo |apt(?:-get)? |npm |pip |cd |export \w+=)/m,
  go: /\bfunc\s+(?:\(\w+\s+\*?\w+\)\s*)?\w+\s*\(|\bpackage\s+main\b/,
  rust: /\bfn\s+\w+\s*(?:<[^>]*>)?\s*\(|\blet\s+mut\s+\w+|\bimpl\b[^{]*\{/,
  c: /#include\s*<[\w.]+>|\bint\s+main\s*\(/,
  cpp: /#include\s*<\w+>|\bstd::\w+|\btemplate\s*</,
  php: /<\?php\b|\$\w+\s*=\s*[^=]/,
  json: /^\s*[{[][\s\S]*[}\]]\s*$/,
};

/** Lower-cases a language name and resolves aliases. */
export function normalizeLanguage(lang: string): string {
  const l = lang.trim().toLowerCase();
  return ALIASES[l] ?? l;
}

/** Fenced code blocks: their (normalized) language, '' when unlabelled, and their code. */
export function fencedBlocks(text: string): Array<{ lang: string; code: string }> {
  return [...text.matchAll(/```([^\s`]*)[^\n]*\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1] ? normalizeLanguage(m[1]) : '', code: m[2] }));
}

function looksLike(format: string | undefined, code: string): boolean {
  if (format) return HEURISTICS[format]?.test(code) ?? false;
  return Object.values(HEURISTICS).some((re) => re !== HEURISTICS.json && re.test(code));
}

export const containsCode = defineCheck({
  id: 'default.containsCode',
  phases: BOTH_PHASES,
  reads: 'text',
  parse(params, path) {
    const p: ParamReader = new ParamReader(params, path);
    const format = p.string('format', { nonEmpty: true });
    return { format: format ? normalizeLanguage(format) : undefined };
  },
  evaluate(input, { format }) {
    const text = textFor(input);
    const blocks = fencedBlocks(text);
    const languages = blocks.map((b) => b.lang).filter(Boolean);
    const labelled = format ? languages.includes(format) : blocks.length > 0;
    const candidates = blocks.length ? blocks.filter((b) => !b.lang).map((b) => b.code) : [text];
    const verdict = labelled || candidates.some((c) => looksLike(format, c));
    const what = format ? `${format} code` : 'code';
    return {
      verdict,
      explanation: verdict ? `The text contains ${what}.` : `No ${what} found.`,
      data: { format: format ?? null, fencedLanguages: languages, blocks: blocks.length },
    };
  },
});
