/**
 * The Dashboard manifest spec: the self-hosted API's dashboard body (selfhosted-api §3.1) without
 * server ids. Tiles carry a stable `key` (default: slug of the tile name) that alerts refer to;
 * sources and connections are references by name or `{id}`.
 */
import * as z from 'zod';
import { assignOwn } from '../../core/json.js';
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

/**
 * A tile name whose slug is a usable default key: it has a letter or a digit (İ and the Kelvin
 * sign are the two other characters that lower-case to one). The editor schema asks it of a tile
 * without a key (src/config/json-schema.ts); a property test keeps it equal to `slugify(name) !== ''`.
 */
export const KEYABLE_NAME_PATTERN = '[A-Za-z0-9\u0130\u212A]';

const id256 = z.string().min(1).max(256);

const tileKey = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]*$/, { error: 'a tile key is lowercase letters, digits, "-" and "_"' })
  .max(64);

const tile = z
  .strictObject({
    key: tileKey
      .optional()
      .meta({ description: 'Stable key of the tile within the dashboard (alerts refer to it). Default: slug of the name.' }),
    previousKeys: z
      .array(tileKey)
      .min(1)
      .max(20)
      .optional()
      .describe(
        'Keys this tile had before (a rename of its key): the tile keeps its id on the service, and the alerts on it, instead of ' +
          'being replaced. Harmless once applied.',
      ),
    name: z.string().describe('Title shown on the tile (may be empty). Its slug is the default key.'),
    x: z.number().min(0).max(23).describe('Column of the left edge on the 24-column grid (0-23).'),
    y: z.number().min(0).describe('Row of the top edge on the grid (0 = top).'),
    w: z.number().min(1).max(24).describe('Width in grid columns (1-24).'),
    h: z.number().min(1).describe('Height in grid rows (at least 1).'),
    config: tileConfig.describe('What the tile shows: a builder chart (the default) or a Raw SQL chart (configType: sql), by displayType.'),
    containerId: id256.optional().describe('Id of the container (a section of containers) the tile sits in.'),
    tabId: id256.optional().describe('Id of a tab of that container; needs containerId.'),
  })
  .meta({ id: 'Tile', description: 'A tile of the dashboard: position and size on the grid, and what it shows.' })
  .transform(withKey);

/**
 * The tile with its key (default: the slug of its name). Not a spread: V8 gives spread copies
 * maps outside its transition tree, and freezing such an object (a kept load is frozen) makes a
 * map per object: 7 MB of maps for 30,000 tiles.
 */
function withKey<T extends { key?: string | undefined; name: string }>(t: T): T & { key: string } {
  if (t.key !== undefined) return t as T & { key: string };
  const out = assignOwn({}, t) as T & { key: string };
  out.key = slugify(t.name);
  return out;
}

const filter = z
  .strictObject({
    type: z.literal('QUERY_EXPRESSION').describe('The kind of filter: always QUERY_EXPRESSION.'),
    name: z.string().min(1).describe('Label of the filter in the dashboard header.'),
    expression: z.string().min(1).describe('Column or expression whose values the filter offers, e.g. ServiceName.'),
    source: refTo('source').describe('Source the values are read from, by name, or {id: "..."}.'),
    sourceMetricType: z.enum(METRIC_TYPES).optional().describe('Metric type, when the source is a metric source.'),
    where: z.string().optional().describe('Condition that narrows the values offered.'),
    whereLanguage: z.enum(['sql', 'lucene']).optional().describe('Language of where: sql or lucene.'),
    appliesToSourceIds: z
      .array(z.string().min(1))
      .optional()
      .describe('Server ids of the sources the selected value applies to (default: all). Needs isBroadcastEnabled.'),
    isBroadcastEnabled: z.boolean().optional().describe('Whether the selected value filters the tiles. Default: true.'),
    isVariableEnabled: z
      .boolean()
      .optional()
      .describe('Whether the selected value is available to Raw SQL tiles as a variable. Default: false.'),
    variableName: z
      .string()
      .max(64)
      .regex(/^[A-Za-z][A-Za-z0-9_]*$/, { error: 'a variable name is a letter then letters, digits or "_"' })
      .optional()
      .describe(
        'Name of the variable (a letter, then letters, digits or "_"). Default: the name with spaces as "_". Needs ' +
          'isVariableEnabled: true.',
      ),
  })
  .meta({ id: 'DashboardFilter', description: 'A filter in the dashboard header; each variable name must be unique.' });

/** A saved SQL condition, or (servers newer than hyperdx b52a6fa8, Cloud since 2026-09-05) a variable's selection. */
const savedFilterValue = z
  .discriminatedUnion('type', [
    z
      .strictObject({
        type: z.literal('sql').optional().describe('Language of the condition: sql (the default).'),
        condition: z.string().max(10000).describe("SQL condition, e.g. ServiceName = 'checkout'."),
      })
      .describe('A SQL condition saved with the dashboard.'),
    z
      .strictObject({
        type: z.literal('variable').describe('variable: the selection of a variable-enabled filter.'),
        name: z.string().describe("The filter's variable name (its variableName)."),
        values: z.array(z.string()).describe('The values selected (an empty list is a selection of nothing).'),
      })
      .describe("A variable's selection saved with the dashboard (servers newer than 2026-08)."),
  ])
  .meta({ id: 'DashboardSavedFilterValue', description: 'A filter value saved with the dashboard.' });

const container = z
  .strictObject({
    id: id256.describe('Id of the container, unique in the dashboard; tiles name it in containerId.'),
    title: id256.describe('Title shown on the container.'),
    collapsed: z.boolean().describe('Whether the container starts collapsed.'),
    collapsible: z.boolean().optional().describe('Whether users may collapse it.'),
    bordered: z.boolean().optional().describe('Whether it is drawn with a border.'),
    tabs: z
      .array(
        z
          .strictObject({
            id: id256.describe('Id of the tab, unique in the container; tiles name it in tabId.'),
            title: id256.describe('Title of the tab.'),
          })
          .describe('A tab of the container.'),
      )
      .max(20)
      .optional()
      .describe('Tabs of the container (at most 20).'),
  })
  .meta({ id: 'DashboardContainer', description: 'A section of the dashboard that groups tiles, optionally in tabs.' });

export const dashboardSpecSchema = z
  .strictObject({
    name: z.string().min(1).max(1024).describe('Display name of the dashboard on the service; also how an existing dashboard is adopted.'),
    tiles: z.array(tile).max(500).describe('The tiles (at most 500), each with a key unique in the dashboard.'),
    tags: z
      .array(z.string().max(32))
      .max(50)
      .optional()
      .describe('Tags (at most 50, each at most 32 characters); the service drops duplicates.'),
    filters: z.array(filter).optional().describe('Filters in the dashboard header.'),
    savedQuery: z.string().nullable().optional().describe('Query applied to the whole dashboard, or null.'),
    savedQueryLanguage: z
      .enum(['sql', 'lucene', 'promql'])
      .nullable()
      .optional()
      .describe('Language of savedQuery (default lucene when savedQuery is set); not null when savedQuery is a string.'),
    savedFilterValues: z
      .array(savedFilterValue)
      .optional()
      .describe('Filter values applied when the dashboard opens: SQL conditions, or selections of a variable.'),
    containers: z.array(container).max(50).optional().describe('Sections that group tiles (at most 50).'),
  })
  .superRefine((spec, ctx) => {
    checkTileKeys(spec.tiles, ctx);
    checkContainers(spec, ctx);
    checkFilters(spec.filters ?? [], ctx);
    if (typeof spec.savedQuery === 'string' && spec.savedQueryLanguage === null)
      ctx.addIssue({
        code: 'custom',
        path: ['savedQueryLanguage'],
        message: 'savedQueryLanguage cannot be null when savedQuery is provided',
      });
  })
  .meta({
    id: 'DashboardSpec',
    description: 'The dashboard as the service stores it, without server ids: tiles refer to sources by name and carry stable keys.',
  });

export type DashboardSpec = z.output<typeof dashboardSpecSchema>;
export type DashboardTileSpec = DashboardSpec['tiles'][number];

function checkTileKeys(tiles: readonly { key: string; name: string; previousKeys?: string[] | undefined }[], ctx: z.RefinementCtx): void {
  const seen = new Map<string, number>();
  checkPreviousKeys(tiles, ctx);
  tiles.forEach((t, i) => {
    if (t.key === '') {
      ctx.addIssue({
        code: 'custom',
        path: ['tiles', i, 'key'],
        message: `tile ${i} needs a key: its name '${t.name}' gives no usable default; add key: <lowercase-name>`,
      });
      return;
    }
    const first = seen.get(t.key);
    if (first !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['tiles', i, 'key'],
        message: `duplicate tile key '${t.key}' (also tiles[${first}]); give one of them an explicit distinct key`,
      });
    else seen.set(t.key, i);
  });
}

/**
 * A previous key names the one tile a key was taken from: it is no key of the dashboard now, and
 * no two tiles (nor one tile twice) claim it; otherwise obsync could not tell which tile keeps the id.
 */
function checkPreviousKeys(tiles: readonly { key: string; previousKeys?: string[] | undefined }[], ctx: z.RefinementCtx): void {
  const keys = new Map(tiles.map((t, i) => [t.key, i]));
  const claimed = new Map<string, number>();
  tiles.forEach((t, i) => {
    t.previousKeys?.forEach((previous, j) => {
      const path = ['tiles', i, 'previousKeys', j];
      const owner = keys.get(previous);
      const first = claimed.get(previous);
      if (owner !== undefined)
        ctx.addIssue({
          code: 'custom',
          path,
          message:
            owner === i
              ? `previousKeys lists the tile's own key '${previous}'`
              : `previous key '${previous}' is still the key of tiles[${owner}]: a tile can only take over a key no tile has any more`,
        });
      else if (first !== undefined)
        ctx.addIssue({
          code: 'custom',
          path,
          message:
            first === i
              ? `'${previous}' is listed twice in previousKeys`
              : `previous key '${previous}' is also claimed by tiles[${first}]: only one tile can take over the old tile`,
        });
      else claimed.set(previous, i);
    });
  });
}

function checkContainers(spec: Pick<DashboardSpec, 'tiles' | 'containers'>, ctx: z.RefinementCtx): void {
  const containers = new Map<string, Set<string>>();
  spec.containers?.forEach((c, i) => {
    if (containers.has(c.id))
      ctx.addIssue({ code: 'custom', path: ['containers', i, 'id'], message: `Container IDs must be unique: "${c.id}"` });
    const tabs = new Set<string>();
    c.tabs?.forEach((t, j) => {
      if (tabs.has(t.id))
        ctx.addIssue({
          code: 'custom',
          path: ['containers', i, 'tabs', j, 'id'],
          message: `Duplicate tab id "${t.id}" in container "${c.id}"`,
        });
      tabs.add(t.id);
    });
    containers.set(c.id, tabs);
  });
  spec.tiles.forEach((t, i) => {
    if (t.tabId !== undefined && t.containerId === undefined)
      ctx.addIssue({ code: 'custom', path: ['tiles', i, 'tabId'], message: 'tabId requires containerId to be set' });
    if (t.containerId === undefined) return;
    const tabs = containers.get(t.containerId);
    if (!tabs)
      ctx.addIssue({
        code: 'custom',
        path: ['tiles', i, 'containerId'],
        message: `Tile references unknown containerId "${t.containerId}"`,
      });
    else if (t.tabId !== undefined && !tabs.has(t.tabId))
      ctx.addIssue({
        code: 'custom',
        path: ['tiles', i, 'tabId'],
        message: `Tile references unknown tabId "${t.tabId}" in container "${t.containerId}"`,
      });
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
    if (!broadcast && !variable)
      ctx.addIssue({
        code: 'custom',
        path: ['filters', i],
        message: `Filter "${f.name}" must broadcast its value, be available as a variable, or both`,
      });
    if (!broadcast && (f.appliesToSourceIds?.length ?? 0) > 0)
      ctx.addIssue({ code: 'custom', path: ['filters', i, 'appliesToSourceIds'], message: 'appliesToSourceIds needs isBroadcastEnabled' });
    if (f.variableName !== undefined && !variable)
      ctx.addIssue({ code: 'custom', path: ['filters', i, 'variableName'], message: 'variableName needs isVariableEnabled: true' });
    if (!variable) return;
    const name = variableNameOf(f);
    if (name === '')
      ctx.addIssue({ code: 'custom', path: ['filters', i, 'name'], message: `Variable name is required for filter "${f.name}"` });
    else if (names.has(name))
      ctx.addIssue({ code: 'custom', path: ['filters', i, 'variableName'], message: `Variable names must be unique: "${name}"` });
    names.add(name);
  });
}
