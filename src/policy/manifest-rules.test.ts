import { describe, expect, it } from 'vitest';
import { checkPolicy } from './check.js';
import type { PolicySettings } from './settings.js';
import { alert, dashboard, webhook } from './test-resources.js';
import type { DesiredResource } from '../core/resource.js';

const lint = (resources: DesiredResource[], settings?: PolicySettings) =>
  checkPolicy({ resources, rules: [], settings, target: { name: '', variant: '' } });
const rules = (resources: DesiredResource[], settings?: PolicySettings) => lint(resources, settings).map((f) => `${f.rule} ${f.address}`);

describe('built-in manifest rules: each fails on one fixture and passes on its fix', () => {
  it('alert-channel (off unless turned on): an alert whose channel names no declared webhook', () => {
    const on: PolicySettings = { rules: { 'alert-channel': 'warning' } };
    expect(rules([alert('a', 'nowhere'), alert('b', { id: 'abc' })], on)).toEqual(['alert-channel Alert/a', 'alert-channel Alert/b']);
    expect(rules([alert('a', 'ops'), webhook('ops')], on)).toEqual([]);
    expect(rules([alert('a', 'nowhere')])).toEqual([]);
  });

  it('unused-webhook: a declared webhook no alert notifies, found by metadata.name or its name on the service', () => {
    expect(rules([webhook('ops'), webhook('spare'), alert('a', 'ops')])).toEqual(['unused-webhook Webhook/spare']);
    const named = webhook('ops');
    expect(rules([{ ...named, spec: { ...(named.spec as object), name: 'Ops Slack' } }, alert('a', 'Ops Slack')])).toEqual([]);
  });

  it(
    'alert-tile-type: a tile alert on a table or an untyped builder tile, or on a Raw SQL table; not on line, stacked_bar or ' + 'number',
    () => {
      const tile = (key: string, config: Record<string, unknown>) => ({ key, name: key, x: 0, y: 0, w: 6, h: 2, config });
      const board = dashboard('d', {
        tiles: [
          tile('t', { displayType: 'table' }),
          tile('sql', { configType: 'sql', displayType: 'table', sqlTemplate: 'SELECT 1' }),
          tile('md', { displayType: 'markdown' }),
          tile('line', { displayType: 'line' }),
          tile('bars', { configType: 'sql', displayType: 'stacked_bar', sqlTemplate: 'SELECT 1' }),
          tile('n', { displayType: 'number' }),
        ],
      });
      const on = (key: string, dashboardRef: unknown = 'd') =>
        alert(key, 'ops', { spec: { dashboard: dashboardRef, tile: key, threshold: 1 } });
      const found = lint([board, on('t'), on('sql'), on('md'), on('line'), on('bars'), on('n'), on('t', { id: 'abc' }), on('gone')]);
      const tiles = found.filter((f) => f.rule === 'alert-tile-type');
      expect(tiles.map((f) => `${f.address} ${f.severity}`)).toEqual(['Alert/t error', 'Alert/sql error', 'Alert/md error']);
      expect(tiles[0]?.message).toContain("tile 't' of Dashboard/d, a table tile");
      expect(tiles[0]?.message).toContain("deletes it at the dashboard's next update");
      expect(tiles[1]?.message).toContain('refuses it on a Raw SQL tile');
    },
  );

  it('required-tags: a dashboard without the tag (exact or tag:value), an alert without the label key', () => {
    const settings = { requiredTags: ['owner'] };
    const found = lint([dashboard('d', { tags: ['team'] }), alert('a', 'ops'), webhook('ops')], settings);
    expect(found.map((f) => `${f.rule} ${f.address} ${f.severity}`).sort()).toEqual([
      'required-tags Alert/a error',
      'required-tags Dashboard/d error',
    ]);
    const fixed = [dashboard('d', { tags: ['owner:payments'] }), alert('a', 'ops', { labels: { owner: 'payments' } }), webhook('ops')];
    expect(rules(fixed, settings)).toEqual([]);
    expect(rules([dashboard('d')])).toEqual([]);
  });

  it('name-pattern: a display name off the pattern of its kind (spec.name, else metadata.name)', () => {
    const settings = { namePatterns: { Dashboard: '^[A-Z]' } };
    const found = lint([dashboard('lower')], settings);
    expect(found.map((f) => f.rule)).toEqual(['name-pattern']);
    expect(found[0]?.message).toContain("'lower' does not match ^[A-Z]");
    expect(rules([dashboard('x', { name: 'Checkout' })], settings)).toEqual([]);
  });

  it('policy.rules sets a severity or turns a rule off', () => {
    expect(lint([webhook('spare')], { rules: { 'unused-webhook': 'error' } }).map((f) => f.severity)).toEqual(['error']);
    expect(rules([webhook('spare')], { rules: { 'unused-webhook': 'off' } })).toEqual([]);
  });

  it('a finding sits at its manifest file:line', () => {
    const w = webhook('spare');
    expect(lint([w])[0]).toMatchObject({ file: w.source.file, line: w.source.line, address: 'Webhook/spare' });
  });
});
