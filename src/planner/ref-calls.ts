/**
 * The questions a kind asks the references while it makes an object's forms, with their answers:
 * recorded for the plan memo, and replayed to tell whether the same questions get the same answers now.
 */
import type { Json } from '../core/wire.js';
import type { AnyKind } from '../core/kind-name.js';
import { sameJson } from '../core/json.js';
import type { NameOrId, RefContext, RefToken, RefUse, TokenContext } from '../kinds/refs.js';

/** One question a kind asked the references while making a form, with the answer it got. */
export type RefCall =
  | { ask: 'ref'; kind: AnyKind; ref: NameOrId; answer: RefUse }
  | { ask: 'part'; kind: AnyKind; ref: NameOrId; part: NameOrId; answer: RefUse }
  | { ask: 'wire'; kind: AnyKind; ref: NameOrId; part: NameOrId | undefined; answer: Json | null }
  | { ask: 'token'; kind: AnyKind; id: string; answer: RefToken }
  | { ask: 'partToken'; kind: AnyKind; id: string; partId: string; answer: RefToken };

/**
 * The references as a kind sees them, recording every question and answer for the memo. A
 * question asked again while one object's forms are made gets the same answer (nothing the
 * answers depend on changes meanwhile): it is recorded once.
 */
export class RecordingRefs implements RefContext, TokenContext {
  readonly calls: RefCall[] = [];

  constructor(private readonly refs: RefContext & TokenContext) {}

  ref(kind: AnyKind, ref: NameOrId): RefUse {
    const answer = this.refs.ref(kind, ref);
    if (!this.calls.some((c) => c.ask === 'ref' && c.kind === kind && sameRef(c.ref, ref)))
      this.calls.push({ ask: 'ref', kind, ref, answer });
    return answer;
  }

  part(kind: AnyKind, ref: NameOrId, part: NameOrId): RefUse {
    const answer = this.refs.part(kind, ref, part);
    if (!this.calls.some((c) => c.ask === 'part' && c.kind === kind && sameRef(c.ref, ref) && sameRef(c.part, part)))
      this.calls.push({ ask: 'part', kind, ref, part, answer });
    return answer;
  }

  wire(kind: AnyKind, ref: NameOrId, part?: NameOrId): Json | null {
    const answer = this.refs.wire(kind, ref, part);
    if (!this.calls.some((c) => c.ask === 'wire' && c.kind === kind && sameRef(c.ref, ref) && sameRef(c.part, part)))
      this.calls.push({ ask: 'wire', kind, ref, part, answer });
    return answer;
  }

  token(kind: AnyKind, id: string): RefToken {
    const answer = this.refs.token(kind, id);
    if (!this.calls.some((c) => c.ask === 'token' && c.kind === kind && c.id === id)) this.calls.push({ ask: 'token', kind, id, answer });
    return answer;
  }

  partToken(kind: AnyKind, id: string, partId: string): RefToken {
    const answer = this.refs.partToken(kind, id, partId);
    if (!this.calls.some((c) => c.ask === 'partToken' && c.kind === kind && c.id === id && c.partId === partId))
      this.calls.push({ ask: 'partToken', kind, id, partId, answer });
    return answer;
  }
}

/** The same question with the same answer, as `replay` compares answers. */
export function sameCall(a: RefCall, b: RefCall): boolean {
  if (a.ask !== b.ask || a.kind !== b.kind) return false;
  switch (a.ask) {
    case 'ref':
      return b.ask === 'ref' && sameRef(a.ref, b.ref) && sameUse(a.answer, b.answer);
    case 'part':
      return b.ask === 'part' && sameRef(a.ref, b.ref) && sameRef(a.part, b.part) && sameUse(a.answer, b.answer);
    case 'wire':
      return b.ask === 'wire' && sameRef(a.ref, b.ref) && sameRef(a.part, b.part) && sameJson(a.answer, b.answer);
    case 'token':
      return b.ask === 'token' && a.id === b.id && sameToken(a.answer, b.answer);
    case 'partToken':
      return b.ask === 'partToken' && a.id === b.id && a.partId === b.partId && sameToken(a.answer, b.answer);
  }
}

export function replay(calls: readonly RefCall[], refs: RefContext & TokenContext): boolean {
  for (const c of calls) {
    const same =
      c.ask === 'ref'
        ? sameUse(refs.ref(c.kind, c.ref), c.answer)
        : c.ask === 'part'
          ? sameUse(refs.part(c.kind, c.ref, c.part), c.answer)
          : c.ask === 'wire'
            ? sameJson(refs.wire(c.kind, c.ref, c.part), c.answer)
            : c.ask === 'token'
              ? sameToken(refs.token(c.kind, c.id), c.answer)
              : sameToken(refs.partToken(c.kind, c.id, c.partId), c.answer);
    if (!same) return false;
  }
  return true;
}

function sameRef(a: NameOrId | undefined, b: NameOrId | undefined): boolean {
  return typeof a === 'object' && typeof b === 'object' ? a.id === b.id : a === b;
}

function sameUse(a: RefUse, b: RefUse): boolean {
  if (a.ok && b.ok) return a.id === b.id && sameToken(a.token, b.token);
  return !a.ok && !b.ok && a.error === b.error;
}

function sameToken(a: RefToken, b: RefToken): boolean {
  return typeof a === 'string' || typeof b === 'string' ? a === b : a.id === b.id && a.name === b.name;
}
