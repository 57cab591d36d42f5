/** What a variant's API wraps its answers in: how the API helpers (./api.ts) unwrap a body, count a list and read an error. */
import type { ApiError } from '../core/errors.js';
import type { RequestInit, Response } from './transport-types.js';

export interface Envelope {
  /** The payload of a success body. */
  unwrap(body: unknown): unknown;
  /** The member of a success body that `unwrap` takes (a body without it is its own payload). */
  readonly listKey: string;
  /** Total count of a paginated list, when the variant reports it. */
  total(res: Response): number | undefined;
  /** The total as the body gives it (what a body's ETag vouches for; a header's total it does not). */
  bodyTotal?(res: Response): number | undefined;
  /** A readable message and request id from an error response. */
  describe(res: Response): { message: string; requestId?: string };
  /**
   * The error for a 404 that is the gateway's page for a route it does not serve, not the API's
   * answer for a missing object; undefined when it is not one. Such a 404 never means "gone".
   */
  unrouted?(init: RequestInit, res: Response): ApiError | undefined;
}
