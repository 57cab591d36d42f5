/** A file's text as read, and finding positions in it again after its load (which keeps no text). */
import { hash } from 'node:crypto';
import type { Locate } from './document.js';
import { parseYamlFile, type ParsedFile } from './parse.js';
import { positionAt } from './positions.js';

/** A file's text as read, with the digest kept loads recognise it by (taken once per read). */
export interface FileText {
  text: string;
  digest: string;
}

/** SHA-256: a different text never passes for the kept one. */
export function textDigest(text: string): string {
  return hash('sha256', text, 'base64');
}

/**
 * Positions in the documents of a file, for findings made after its load: the file is read and
 * parsed again on the first one (positions do not depend on interpolation, which changes values
 * only). It does not hold the text: a daemon keeps the loads of unchanged files from run to run,
 * and the text of 20,000 objects is 8 MB. A file changed (or gone) since gives the first line.
 */
export function locatorOf(file: string, digest: string, read: (file: string) => string): (index: number) => Locate {
  let again: ParsedFile | null | undefined;
  return (index) => (path) => {
    again ??= parsedAgain(file, digest, read);
    const doc = again?.docs[index];
    return doc && again ? positionAt(doc, again.lineCounter, path) : { line: 1, col: 1 };
  };
}

function parsedAgain(file: string, digest: string, read: (file: string) => string): ParsedFile | null {
  try {
    const text = read(file);
    return textDigest(text) === digest ? parseYamlFile(file, text) : null;
  } catch {
    return null;
  }
}
