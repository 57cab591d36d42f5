/**
 * The scrubber (issue 24.5): CPU time to mask a text as the text grows, with 100 ordinary secrets
 * and one of 200,000 characters registered, on plain text, on text full of the secrets' forms,
 * on text built to make a naive matcher quadratic (the long secret's start repeated), and on error
 * bodies echoing the secrets escaped (PHP `\/`, HTML entities, percent-encoding) and cut short.
 * Time per MB should stay flat as the text grows: linear. Measured, never asserted.
 */
import { Scrubber } from '../../src/core/scrub.js';
import { defineMeasure, type Result } from '../measure.js';

interface Sizes {
  /** Text lengths in characters. */
  chars: number[];
  samples: number;
}

export default defineMeasure({
  name: 'scrub',
  title: "the scrubber's CPU per million characters as the text grows (flat: linear)",
  tables: { scrub: ['text', 'chars', 'cpuMs', 'msPerMChars', 'registerMs'] },
  sizes: {
    full: { chars: [100_000, 1_000_000, 4_000_000], samples: 3 },
    quick: { chars: [100_000, 1_000_000], samples: 2 },
    smoke: { chars: [20_000], samples: 1 },
  } satisfies Record<string, Sizes>,
  run(sizes, ctx) {
    for (const row of scrubBench(sizes)) ctx.record(row);
    return Promise.resolve();
  },
});

function cpuMsOf(f: () => void): number {
  const t0 = process.cpuUsage();
  f();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
}

function fastestOf(samples: number, f: () => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < samples; i++) best = Math.min(best, cpuMsOf(f));
  return best;
}

function scrubBench(opts: Sizes): Result[] {
  const secrets = Array.from({ length: 100 }, (_, i) => `secret-${i}-${'x'.repeat(20)}-${(i * 7919).toString(36)}`);
  const long = `${'東'.repeat(100_000)}${'k'.repeat(100_000)}`;
  const scrubber = new Scrubber();
  const registerMs = cpuMsOf(() => {
    for (const s of [...secrets, long]) scrubber.register(s);
    scrubber.scrub('warm: builds the automaton');
  });
  const sizes = opts.chars;
  const texts: Record<string, (n: number) => string> = {
    plain: (n) => 'the quick brown fox jumps over the lazy dog; '.repeat(Math.ceil(n / 45)).slice(0, n),
    'full of secrets': (n) =>
      secrets
        .map((s) => `echo ${s.toUpperCase()} ${Buffer.from(`id:${s}`).toString('base64')} `)
        .join('')
        .repeat(Math.ceil(n / 5000))
        .slice(0, n),
    'anchor repeated': (n) => `${'東'.repeat(99_999)}x`.repeat(Math.ceil(n / 100_000)).slice(0, n),
    // Issue 53: JSON error bodies whose echoes are escaped as PHP (`\/`), HTML (`&#47;`) and percent-encoded, cut short too.
    'escaped echoes': (n) =>
      secrets
        .map((s) => {
          const pct = [...Buffer.from(s)].map((b) => `%${b.toString(16)}`).join('');
          return `{"error":"bad token on \\/api\\/v2: ${s} &lt;${s.replace(/-/g, '&#45;')}&gt; q=${pct} cut ${s.slice(0, 12)}…"} `;
        })
        .join('')
        .repeat(Math.ceil(n / 20_000))
        .slice(0, n),
  };
  const results: Result[] = [];
  for (const [kind, make] of Object.entries(texts))
    for (const n of sizes) {
      const text = make(n);
      const ms = fastestOf(opts.samples, () => void scrubber.scrub(text));
      results.push({
        measure: 'scrub',
        text: kind,
        chars: n,
        cpuMs: Math.round(ms),
        msPerMChars: Math.round((ms / n) * 1e6),
        registerMs: Math.round(registerMs),
      });
    }
  return results;
}
