/**
 * The Dashboard manifest spec: the self-hosted API's dashboard body (selfhosted-api §3.1) without
 * server ids. Tiles carry a stable `key` (default: slug of the tile name) that alerts refer to;
 * sources and connections are references by name or `{id}`.
 */
import * as z from 'zod';
import { refTo } from '../ref-schema.js';
import { METRIC_TYPES } from './select.js';
import { tileConfig } from './tile-config.js';

/** `p99 latency` → `p99-latency`: the default tile key. */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

const id256 = z.string().min(1).max(256);

const tile = z
  .strictObject({
    key: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]*$/, { error: 'a tile key is lowercase letters, digits, "-" and "_"' })
      .max(64)
      .optional()
      .meta({ description: 'Stable key of the tile within the dashboard (alerts refer to it). Default: slug of the name.' }),
    name: z.string(),
    x: z.number().min(0).max(23),
    y: z.number().min(0),
    w: z.number().min(1).max(24),
    h: z.number().min(1),
    config: tileConfig,
    containerId: id256.optional(),
    tabId: id256.optional(),
  })
  .transform((t) => ({ ...t, key: t.key ?? slugify(t.name) }));

const filter = z.strictObject({
  type: z.literal('QUERY_EXPRESSION'),
  name: z.string().min(1),
  expression: z.string().min(1),
  source: refTo('source'),
  sourceMetricType: z.enum(METRIC_TYPES).optional(),
  where: z.string().optional(),
  whereLanguage: z.enum(['sql', 'lucene']).optional(),
  appliesToSourceIds: z.array(z.string().min(1)).optional(),
  isBroadcastEnabled: z.boolean().optional(),
  isVariableEnabled: z.boolean().optional(),
  variableName: z
    .string()
    .max(64)
    .regex(/^[A-Za-z][A-Za-z0-9_]*$/, { error: 'a variable name is a letter then letters, digits or "_"' })
    .optional(),
});

const container = z.strictObject({
  id: id256,
  title: id256,
  collapsed: z.boolean(),
  collapsible: z.boolean().optional(),
  bordered: z.boolean().optional(),
  tabs: z.array(z.strictObject({ id: id256, title: id256 })).max(20).optional(),
});

export const dashboardSpecSchema = z
  .strictObject({
    name: z.string().min(1).max(1024),
    tiles: z.array(tile).max(500),
    tags: z.array(z.string().max(32)).max(50).optional(),
    filters: z.array(filter).optional(),
    savedQuery: z.string().nullable().optional(),
    savedQueryLanguage: z.enum(['sql', 'lucene', 'promql']).nullable().optional(),
    savedFilterValues: z.array(z.strictObject({ type: z.literal('sql').optional(), condition: z.string().max(10000) })).optional(),
    containers: z.array(container).max(50).optional(),
  })
  .superRefine((spec, ctx) => {
    checkTileKeys(spec.tiles, ctx);
    checkContainers(spec, ctx);
    checkFilters(spec.filters ?? [], ctx);
    if (typeof spec.savedQuery === 'string' && spec.savedQueryLanguage === null) ctx.addIssue({ code: 'custom', path: ['savedQueryLanguage'], message: 'savedQueryLanguage cannot be null when savedQuery is provided' });
  });

export type DashboardSpec = z.output<typeof dashboardSpecSchema>;
export type DashboardTileSpec = DashboardSpec['tiles'][number];

function checkTileKeys(tiles: readonly { key: string; name: string }[], ctx: z.RefinementCtx): void {
  const seen = new Map<string, number>();
  tiles.forEach((t, i) => {
    if (t.key === '') {
      ctx.addIssue({ code: 'custom', path: ['tiles', i, 'key'], message: `tile ${i} needs a key: its name '${t.name}' gives no usable default; add key: <lowercase-name>` });
      return;
    }
    const first = seen.get(t.key);
    if (first !== undefined) ctx.addIssue({ code: 'custom', path: ['tiles', i, 'key'], message: `duplicate tile key '${t.key}' (also tiles[${first}]); give one of them an explicit distinct key` });
    else seen.set(t.key, i);
  });
}

function checkContainers(spec: Pick<DashboardSpec, 'tiles' | 'containers'>, ctx: z.RefinementCtx): void {
  const containers = new Map<string, Set<string>>();
  spec.containers?.forEach((c, i) => {
    if (containers.has(c.id)) ctx.addIssue({ code: 'custom', path: ['containers', i, 'id'], message: `Container IDs must be unique: "${c.id}"` });
    const tabs = new Set<string>();
    c.tabs?.forEach((t, j) => {
      if (tabs.has(t.id)) ctx.addIssue({ code: 'custom', path: ['containers', i, 'tabs', j, 'id'], message: `Duplicate tab id "${t.id}" in container "${c.id}"` });
      tabs.add(t.id);
    });
    containers.set(c.id, tabs);
  });
  spec.tiles.forEach((t, i) => {
    if (t.tabId !== undefined && t.containerId === undefined) ctx.addIssue({ code: 'custom', path: ['tiles', i, 'tabId'], message: 'tabId requires containerId to be set' });
    if (t.containerId === undefined) return;
    const tabs = containers.get(t.containerId);
    if (!tabs) ctx.addIssue({ code: 'custom', path: ['tiles', i, 'containerId'], message: `Tile references unknown containerId "${t.containerId}"` });
    else if (t.tabId !== undefined && !tabs.has(t.tabId)) ctx.addIssue({ code: 'custom', path: ['tiles', i, 'tabId'], message: `Tile references unknown tabId "${t.tabId}" in container "${t.containerId}"` });
  });
}

/** The server's effective variable name: explicit, else the name with whitespace → `_`, illegal chars dropped. */
function variableNameOf(f: { name: string; variableName?: string | undefined }): string {
  if (f.variableName !== undefined) return f.variableName;
  const cleaned = f.name.replace(/\s+/g, '_').replace(/[^A-Za-z0-9_]/g, '');
  return /^[0-9_]/.test(cleaned) ? `v${cleaned}` : cleaned;
}

type FilterSpec = NonNullable<DashboardSpec['filters']>[number];

function checkFilters(filters: readonly FilterSpec[], ctx: z.RefinementCtx): void {
  const names = new Set<string>();
  filters.forEach((f, i) => {
    const broadcast = f.isBroadcastEnabled ?? true;
    const variable = f.isVariableEnabled ?? false;
    if (!broadcast && !variable) ctx.addIssue({ code: 'custom', path: ['filters', i], message: `Filter "${f.name}" must broadcast its value, be available as a variable, or both` });
    if (!broadcast && (f.appliesToSourceIds?.length ?? 0) > 0) ctx.addIssue({ code: 'custom', path: ['filters', i, 'appliesToSourceIds'], message: 'appliesToSourceIds needs isBroadcastEnabled' });
    if (f.variableName !== undefined && !variable) ctx.addIssue({ code: 'custom', path: ['filters', i, 'variableName'], message: 'variableName needs isVariableEnabled: true' });
    if (!variable) return;
    const name = variableNameOf(f);
    if (name === '') ctx.addIssue({ code: 'custom', path: ['filters', i, 'name'], message: `Variable name is required for filter "${f.name}"` });
    else if (names.has(name)) ctx.addIssue({ code: 'custom', path: ['filters', i, 'variableName'], message: `Variable names must be unique: "${name}"` });
    names.add(name);
  });
}
