/**
 * The names of the kinds, for core's plan, live-state and port types. Core sits below src/kinds
 * and never imports it; src/kinds/registry.ts checks at compile time that these are exactly the
 * kinds it registers (adding a kind: its folder, its registry line, and its name here).
 */
export type AnyKind =
  | 'Dashboard'
  | 'Alert'
  | 'Pipe'
  | 'Source'
  | 'Webhook'
  | 'SavedSearch'
  | 'Connection'
  | 'TeamMember'
  | 'Role'
  | 'TeamSettings'
  | 'PipeSshKey';

/** The kinds manifests declare (every kind, today). */
export type Kind = AnyKind;
