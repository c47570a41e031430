#!/usr/bin/env node
/**
 * Names the JavaScript in a callgrind dump. callgrind shows code V8 compiled at run time as bare addresses
 * (`???:0x000000000d2df8c0`); V8's `--perf-basic-prof` writes where each compiled function lies
 * (`/tmp/perf-<pid>.map`: start, size, name). This maps every address to its function and prints the
 * self cost per function (builtins and C++ keep their names), per request, or the callers of the
 * functions matching a pattern.
 *
 *   BENCH_INSTR_NODE_ARGS=--perf-basic-prof BENCH_INSTR_KEEP=1 node bench/instructions.mjs
 *   node bench/callgrind-names.mjs bench/results/callgrind/ours-chat-1.callgrind /tmp/perf-<pid>.map [--requests 1000] [--top 60]
 *   node bench/callgrind-names.mjs <dump> <map> --callers 'StringAdd|skipValue'
 *   node bench/callgrind-names.mjs <dump> <map> --callees '^JS get usage '
 *
 * The pid is the gateway's (valgrind runs node in its own process: the map of the target started
 * under valgrind). Code V8 moved or freed and reused shows under the last function the map placed there.
 */
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const [file, mapFile, ...rest] = process.argv.slice(2);
if (!file || !mapFile) {
  console.error(
    'usage: node bench/callgrind-names.mjs <callgrind dump> <perf map> [--requests N] [--top N] [--callers <regex>] [--callees <regex>]',
  );
  process.exit(2);
}
const option = (name, dflt) => {
  const i = rest.indexOf(name);
  return i >= 0 ? rest[i + 1] : dflt;
};
const requests = Number(option('--requests', 1000));
const top = Number(option('--top', 60));
const callers = option('--callers');
const callees = option('--callees');

// Later lines of the map describe code placed over earlier code: search the newest first.
const ranges = readFileSync(mapFile, 'utf8')
  .split('\n')
  .map((line) => /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line))
  .filter(Boolean)
  .map((m) => ({ start: parseInt(m[1], 16), end: parseInt(m[1], 16) + parseInt(m[2], 16), name: m[3].replace(/^JS:[*~^]?/, '') }))
  .reverse();
const named = new Map();
/** A readable name for callgrind's function label: JIT code by the map, the rest without its library and arguments. */
function nameOf(label) {
  const jit = /^\?\?\?:0x([0-9a-f]+)/.exec(label);
  if (jit) {
    const address = parseInt(jit[1], 16);
    if (!named.has(address)) named.set(address, `JS ${ranges.find((r) => address >= r.start && address < r.end)?.name ?? '(unmapped)'}`);
    return named.get(address);
  }
  return label
    .replace(/^[^:]*:/, '')
    .replace(/\s*\[[^\]]*\]$/, '')
    .replace(/\(.*$/, '')
    .slice(0, 120);
}
const annotate = (args) =>
  spawnSync('callgrind_annotate', [...args, '--threshold=100', '--show=Ir', file], { encoding: 'utf8', maxBuffer: 1 << 30 }).stdout;
const number = (s) => Number(s.replaceAll(',', ''));
const perRequest = (n) => String(Math.round(n / requests)).padStart(8);

if (callers) {
  // --tree=caller: each function's line (`*`) follows the lines of its callers (`<`), with the cost of each call arc.
  const pattern = new RegExp(callers);
  let arcs = [];
  for (const line of annotate(['--tree=caller', '--inclusive=yes']).split('\n')) {
    const arc = /^\s*([\d,]+) \([^)]*\)\s+<\s+(.*)$/.exec(line);
    if (arc) {
      arcs.push([number(arc[1]), arc[2]]);
      continue;
    }
    const fn = /^\s*([\d,]+) \([^)]*\)\s+\*\s+(.*)$/.exec(line);
    if (fn && pattern.test(nameOf(fn[2]))) {
      console.log(`${perRequest(number(fn[1]))} ${nameOf(fn[2])} (inclusive, per request), called by:`);
      const by = new Map();
      for (const [n, who] of arcs) by.set(nameOf(who), (by.get(nameOf(who)) ?? 0) + n);
      for (const [who, n] of [...by].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${perRequest(n)} ${who}`);
    }
    if (fn || line.trim() === '') arcs = [];
  }
} else if (callees) {
  // --tree=calling: each function's line (`*`) is followed by the lines of what it calls (`>`), with the cost of each call arc.
  const pattern = new RegExp(callees);
  let current;
  const print = () => {
    if (!current) return;
    console.log(`${perRequest(current.n)} ${current.name} (inclusive, per request), calls:`);
    for (const [who, n] of [...current.to].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${perRequest(n)} ${who}`);
    current = undefined;
  };
  for (const line of annotate(['--tree=calling', '--inclusive=yes']).split('\n')) {
    const fn = /^\s*([\d,]+) \([^)]*\)\s+\*\s+(.*)$/.exec(line);
    if (fn) {
      print();
      if (pattern.test(nameOf(fn[2]))) current = { n: number(fn[1]), name: nameOf(fn[2]), to: new Map() };
      continue;
    }
    const arc = /^\s*([\d,]+) \([^)]*\)\s+>\s+(.*)$/.exec(line);
    if (arc && current) current.to.set(nameOf(arc[2]), (current.to.get(nameOf(arc[2])) ?? 0) + number(arc[1]));
    else if (line.trim() === '') print();
  }
  print();
} else {
  const self = new Map();
  let total = 0;
  for (const line of annotate(['--inclusive=no']).split('\n')) {
    const m = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (!m || m[2].includes('PROGRAM TOTALS')) continue;
    total += number(m[1]);
    const name = nameOf(m[2]);
    self.set(name, (self.get(name) ?? 0) + number(m[1]));
  }
  console.log(`${perRequest(total)} instructions per request in all (${requests} requests), self cost by function:`);
  for (const [name, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${perRequest(n)} ${name}`);
}
