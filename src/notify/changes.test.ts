import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { World } from '../../test/support/world.js';
import { planChanges } from './changes.js';

const alert = (threshold: number) => `apiVersion: obsync/v1
kind: Alert
metadata: {name: checkout-p99-high}
spec:
  dashboard: checkout
  tile: p99
  interval: 5m
  threshold: ${threshold}
  thresholdType: above
  channel: {type: webhook, webhook: oncall}
  name: Checkout p99 high
`;
const webhook = (key: string) => `apiVersion: obsync/v1
kind: Webhook
metadata: {name: oncall}
spec:
  service: generic
  name: On-call
  url: https://example.com/hooks/oncall
  headers: {X-Routing-Key: ${key}}
`;
const dashboard = readFileSync('config-examples/team/dashboards/checkout.yaml', 'utf8');

const world = new World('self-hosted');
afterAll(() => world.close());

describe('planChanges: the field changes a notification shows', () => {
  it('in the status page’s words, an update only, a sensitive value masked', async () => {
    const files = (threshold: number, key: string) => ({
      'a.yaml': [dashboard, alert(threshold), webhook(key)].join('---\n'),
      'b.yaml': 'apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: fresh}\nspec: {name: Fresh, tiles: []}\n',
    });
    await world.apply({ 'a.yaml': files(1500, 'routing-key-old-4f2a')['a.yaml'] });
    const plan = await world.plan(files(900, 'routing-key-new-8c1d'));
    const changes = planChanges(plan, ['Alert/checkout-p99-high', 'Webhook/oncall', 'Dashboard/fresh', 'Dashboard/checkout']);
    expect(changes.get('Alert/checkout-p99-high')).toEqual(['threshold 1500 → 900']);
    // A create is the whole object: its address says it. Unchanged objects have no entry.
    expect([...changes.keys()].sort()).toEqual(['Alert/checkout-p99-high', 'Webhook/oncall']);
    const text = JSON.stringify([...changes]);
    expect(text).not.toMatch(/routing-key-(old|new)/);
    expect(changes.get('Webhook/oncall')).toEqual(['headers (sensitive) → (sensitive)']);
    expect(planChanges(undefined, ['Alert/checkout-p99-high']).size).toBe(0);
  });
});
