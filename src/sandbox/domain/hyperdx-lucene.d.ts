/** The part of `@hyperdx/lucene` (CommonJS, no types of its own) the simulator uses. */
declare module '@hyperdx/lucene' {
  /** The query's syntax tree; throws the PEG parser's SyntaxError (`Expected … but … found.`) when it does not parse. */
  export function parse(query: string): unknown;
}
