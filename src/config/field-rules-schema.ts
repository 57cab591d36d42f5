/**
 * `ignore:` and `mark:` of obsync.yaml (issue 48), per target or under `defaults`: the fields the
 * service's UI owns, per kind, and the mark obsync puts on the objects it manages so people at the
 * screen know an edit there will be reverted or proposed.
 */
import * as z from 'zod';
import { durationMs } from '../core/duration.js';
import type { Kind } from '../core/plan.js';
import { KINDS } from '../kinds/registry.js';
import { ignorePathProblem } from '../manifests/ignore-rules.js';

const ignorePaths = (kind: Kind) =>
  z
    .array(z.string().min(1).max(256))
    .min(1)
    .max(50)
    .superRefine((paths, ctx) => {
      paths.forEach((path, i) => {
        const problem = ignorePathProblem(kind, path);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', path: [i], message: problem });
      });
    })
    .describe(`Paths of ${kind} fields in spec terms, e.g. tiles[*].x.`);

export const ignoreSetting = z
  .strictObject(
    Object.fromEntries(KINDS.map((kind) => [kind, ignorePaths(kind).optional()])) as Record<Kind, z.ZodOptional<z.ZodArray<z.ZodString>>>,
  )
  .meta({
    id: 'IgnoreRules',
    description:
      "Fields the service's UI owns, per kind: paths in spec terms (tiles[*].x, tiles[*].y, savedFilterValues), each checked " +
      "against the kind's schema. A difference there is neither planned, reverted, pulled nor proposed; the plan shows it as " +
      "ignored by its rule. A create still sends the manifest's value. A target's rules are added to those under defaults, and " +
      "a manifest's metadata.ignore to both.",
  });
export type IgnoreSetting = z.infer<typeof ignoreSetting>;

/** A tag the service keeps: at most 32 characters, no spaces or control characters. */
const markTag = z
  .string()
  .regex(/^[\x21-\x7e]{1,32}$/, 'a mark tag is 1-32 printable characters without spaces')
  .describe('A tag added to the objects that have tags (dashboards, saved searches), e.g. managed-by-obsync.');

const markLine = z
  .string()
  .regex(/^[^\p{Cc}\p{Cf}]{1,200}$/u, 'a mark line is one line of at most 200 characters')
  .describe("A line added to the description of the objects that have one (an alert's note), e.g. Managed in Git by obsync.");

export const markSetting = z
  .strictObject({ tag: markTag.optional(), description: markLine.optional() })
  .refine((m) => m.tag !== undefined || m.description !== undefined, 'a mark has a tag, a description line, or both')
  .meta({
    id: 'Mark',
    description:
      'A visible "managed in Git" mark on the objects obsync writes (opt-in): obsync adds it to what it sends and keeps it out of ' +
      "every comparison, diff, pull and export, so it never shows as a change. A target's mark replaces the one under defaults.",
  });
export type MarkSetting = z.infer<typeof markSetting>;

/** Learned suggestions of ignore rules (issue 48 item 2): how often a field must drift, and within how long. */
export const ignoreSuggestionsSetting = z
  .union([
    z.literal(false),
    z.strictObject({
      after: z.number().int().min(2).max(100).optional().describe('Runs that found the field changed on the service (2-100; default 3).'),
      within: z
        .string()
        .refine((text) => durationMs(text, 'd') !== null, 'a window in days, like 30d')
        .optional()
        .describe('How far back they count, in days (default 30d).'),
    }),
  ])
  .meta({
    id: 'IgnoreSuggestions',
    description:
      'obsync run: when the same field of the same object changes on the service again and again (default 3 runs in 30d), suggest ' +
      "an ignore rule (an ignore-suggested event and notification, the target's status) with the lines to add; obsync never adds " +
      "one itself. false turns it off. A target's setting replaces the one under defaults.",
  });
export type IgnoreSuggestionsSetting = z.infer<typeof ignoreSuggestionsSetting>;
