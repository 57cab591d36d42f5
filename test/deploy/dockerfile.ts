/** Just enough of a Dockerfile reader for the tests: stages, instructions, exec forms, ENV pairs, COPY sources. */

export interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

export interface Stage {
  /** `AS name`, or the index for an unnamed stage. */
  name: string;
  image: string;
  instructions: Instruction[];
}

export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const start = i;
    let logical = lines[i] ?? '';
    if (/^\s*(#|$)/.test(logical)) continue;
    while (logical.endsWith('\\') && i + 1 < lines.length) {
      i += 1;
      logical = `${logical.slice(0, -1)} ${(lines[i] ?? '').trim()}`;
    }
    const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(logical);
    if (!match) throw new Error(`Dockerfile line ${start + 1}: not an instruction: ${logical}`);
    const instruction = { keyword: (match[1] ?? '').toUpperCase(), args: (match[2] ?? '').trim(), line: start + 1 };
    if (instruction.keyword === 'FROM') {
      const [image = '', as, name] = instruction.args.split(/\s+/);
      stages.push({ name: as?.toUpperCase() === 'AS' && name ? name : String(stages.length), image, instructions: [] });
      continue;
    }
    const current = stages.at(-1);
    if (!current) throw new Error(`Dockerfile line ${start + 1}: ${instruction.keyword} before FROM`);
    current.instructions.push(instruction);
  }
  return stages;
}

/** The JSON array of an exec-form instruction, or null for the shell form. */
export function execForm(args: string): string[] | null {
  if (!args.startsWith('[')) return null;
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((a): a is string => typeof a === 'string')) throw new Error(`not an exec form: ${args}`);
  return parsed;
}

/** `ENV A=1 B=2` pairs (values without spaces or quotes, as this project writes them). */
export function envPairs(args: string): [string, string][] {
  return args.split(/\s+/).map((pair) => {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new Error(`ENV '${pair}' is not NAME=value`);
    return [pair.slice(0, eq), pair.slice(eq + 1)];
  });
}

/** `LABEL a=b "c.d"="e f"` pairs: keys and values bare or double-quoted (a value's `\"` and `\\` unescaped). */
export function labelPairs(args: string): [string, string][] {
  const word = String.raw`"(?:[^"\\]|\\.)*"|[^\s="]+`;
  const pairs: [string, string][] = [];
  const unquote = (w: string) => (w.startsWith('"') ? w.slice(1, -1).replace(/\\(.)/g, '$1') : w);
  const rest = args.replace(new RegExp(`\\s*(${word})=(${word})\\s*`, 'gy'), (_m, key: string, value: string) => {
    pairs.push([unquote(key), unquote(value)]);
    return '';
  });
  if (rest !== '') throw new Error(`LABEL '${args}': not key=value pairs at '${rest}'`);
  return pairs;
}

export interface Copy {
  from: string | undefined;
  sources: string[];
  dest: string;
}

export function copyArgs(args: string): Copy {
  const words = args.split(/\s+/);
  let from: string | undefined;
  while (words[0]?.startsWith('--')) {
    const flag = words.shift() ?? '';
    if (flag.startsWith('--from=')) from = flag.slice('--from='.length);
    else throw new Error(`COPY flag ${flag} is not understood by the test`);
  }
  const dest = words.pop();
  if (!dest || words.length === 0) throw new Error(`COPY ${args}: needs sources and a destination`);
  return { from, sources: words, dest };
}

/** The instruction's value in a stage (the last one wins, as in Docker). */
export function last(stage: Stage, keyword: string): Instruction | undefined {
  return stage.instructions.filter((i) => i.keyword === keyword).at(-1);
}
