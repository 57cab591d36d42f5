/** What each command module (./commands/<name>.ts) exports as `register`; program.ts loads them lazily. */
import type { Command } from 'commander';
import type { CliIO } from './io.js';

export type CommandRegistrar = (program: Command, io: CliIO) => void;
