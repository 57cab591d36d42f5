// `node scripts/copy-assets.js OUT`: the files a compiled src/ reads beside its JavaScript — the
// OpenTelemetry protos of the sandbox's OTLP receiver — copied from src/ to OUT (dist for the
// build, dist-bench/src for the bench). Without them the receiver answers every export 500.
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const out = process.argv[2];
if (!out) throw new Error('usage: node scripts/copy-assets.js OUT (the directory src/ compiles to)');
cpSync('src/sandbox/otlp/proto', join(out, 'sandbox/otlp/proto'), { recursive: true });
