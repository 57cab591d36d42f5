/**
 * Whether a Lucene `where` parses, as the real server decides it, in its words. HyperDX's
 * common-utils `parse()` (queryParser.ts at b52a6fa8) rewrites a few tokens and hands the text to
 * `@hyperdx/lucene` (HyperDX's fork of the lucene PEG parser): the same package parses here. The
 * chart series route trims `where`, parses only a non-empty one, and answers a parse error with
 * 500 and the parser's own message as `{error}` (charts.ts catches it and sends `e.message`).
 */
import { parse } from '@hyperdx/lucene';

/** The token rewrites HyperDX applies before parsing (`encodeSpecialTokens`, verbatim). */
function encodeSpecialTokens(query: string): string {
  return query
    .replace(/\\\\/g, 'HDX_BACKSLASH_LITERAL')
    .replace(/http:\/\//g, 'http_COLON_//')
    .replace(/https:\/\//g, 'https_COLON_//')
    .replace(/localhost:(\d{1,5})/g, 'localhost_COLON_$1')
    .replace(/\\:/g, 'HDX_COLON');
}

/** The message the server answers a `where` with, or undefined when it parses (an empty one is not parsed). */
export function luceneSyntaxError(where: string): string | undefined {
  const query = where.trim();
  if (query === '') return undefined;
  try {
    parse(encodeSpecialTokens(query));
    return undefined;
  } catch (err) {
    // The parser's SyntaxError; a query nested past the stack's depth throws RangeError there too.
    return err instanceof Error ? err.message : String(err);
  }
}
