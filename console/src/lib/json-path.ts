/**
 * Where each value of a JSON text sits, by its path in the gateway's notation (`targets[0].retry.attempts`),
 * so an editor can select what a validation error names. Undefined when the text is not JSON.
 */
export function valuePositions(text: string): Map<string, [number, number]> | undefined {
  const out = new Map<string, [number, number]>();
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  };
  const fail = (): never => {
    throw new SyntaxError(`JSON error at ${i}`);
  };
  const str = (): string => {
    if (text[i] !== '"') fail();
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) fail();
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const join = (base: string, key: string) => (base === '' ? key : `${base}.${key}`);
  const value = (path: string): void => {
    ws();
    const start = i;
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') i++;
      else
        for (;;) {
          ws();
          const key = str();
          ws();
          if (text[i++] !== ':') fail();
          value(join(path, key));
          ws();
          const sep = text[i++];
          if (sep === '}') break;
          if (sep !== ',') fail();
        }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') i++;
      else
        for (let n = 0; ; n++) {
          value(`${path}[${n}]`);
          ws();
          const sep = text[i++];
          if (sep === ']') break;
          if (sep !== ',') fail();
        }
    } else if (c === '"') str();
    else {
      const m = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i));
      if (!m) fail();
      i += m![0].length;
    }
    out.set(path, [start, i]);
  };
  try {
    value('');
    ws();
    if (i !== text.length) fail();
    return out;
  } catch {
    return undefined;
  }
}

/** The JSON path an error names: its `param`, else the first path-like word of its message (`config.targets[0].weight`). */
export function pathOfError(param: string | null, message: string): string | undefined {
  if (param && /[.[]/.test(param)) return param;
  const m = /\b([a-z_][\w-]*(?:\[\d+\]|\.[\w-]+)+)/i.exec(message);
  return m?.[1] ?? param ?? undefined;
}

/**
 * The range of the value `path` names in `text`, trying it as given and without leading segments
 * (`body.`, `config.`: the server names the field of its request body, the editor holds one of them),
 * then its closest existing parent.
 */
export function locate(text: string, path: string): [number, number] | undefined {
  const positions = valuePositions(text);
  if (!positions) return undefined;
  const candidates: string[] = [];
  let p = path.replace(/^(body|querystring)\./, '');
  for (;;) {
    candidates.push(p);
    const dot = p.indexOf('.');
    const bracket = p.indexOf('[');
    if (dot < 0) break;
    if (bracket >= 0 && bracket < dot) break;
    p = p.slice(dot + 1);
  }
  for (const c of candidates) if (positions.has(c)) return positions.get(c);
  for (const c of candidates) {
    let parent = c;
    while (parent) {
      parent = parent.replace(/(\.[^.[]+|\[\d+\])$/, '');
      if (positions.has(parent) && parent !== '') return positions.get(parent);
      if (!/[.[]/.test(parent)) break;
    }
  }
  return undefined;
}
