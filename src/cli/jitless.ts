/**
 * Imported before any schema is built by the commands that only validate a few documents
 * (`validate`): zod then interprets instead of compiling a parser per object schema, which costs
 * more than it saves on a short run. The engine's commands keep the compiled parsers.
 */
import * as z from 'zod';

z.config({ jitless: true });
