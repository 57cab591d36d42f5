/**
 * Issue 15: prune safety for the kinds alerts depend on. Deleting a saved search makes the
 * service delete its alerts: a hand-made alert on an owned saved search keeps the delete back
 * (named, with the way out) unless --prune-cascade. The service refuses to delete a webhook an
 * alert still uses (409): the plan predicts it, so an owned webhook no longer declared but still
 * used by a hand-made alert is kept back (named, with who uses it), stays owned, and the rest of
 * the run goes on; no DELETE is sent to meet the 409.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectionOf } from '../../src/kinds/registry.js';
import { TrustHarness } from '../support/reconcile.js';

let h: TrustHarness;

const doc = (kind: string, name: string, spec: string) =>
  `apiVersion: obsync/v1\nkind: ${kind}\nmetadata: {name: ${name}}\nspec: ${spec}\n---\n`;
const search = (name: string) => doc('SavedSearch', name, `{name: Search ${name}, source: Logs, where: 'level:error'}`);
const searchAlert = (name: string, savedSearch: string, webhook = 'ops-slack') =>
  doc(
    'Alert',
    name,
    `{savedSearch: ${savedSearch}, threshold: 1, thresholdType: above, interval: 5m, channel: {type: webhook, webhook: ${webhook}}, ` +
      `name: ${name}}`,
  );
const webhook = (name: string) =>
  doc('Webhook', name, `{service: generic, name: Hook ${name}, url: 'https://example.com/hooks/${name}-7f3e'}`);

afterEach(() => h.close());

describe('a saved search with an alert obsync does not own', () => {
  beforeEach(async () => {
    h = await TrustHarness.start();
    h.manifests({
      'keep.yaml': search('keep') + searchAlert('keep-alert', 'keep'),
      'doomed.yaml': search('doomed') + searchAlert('doomed-alert', 'doomed'),
    });
    expect((await h.run()).apply?.summary.failed).toBe(0);
  });

  async function handMadeAlertOn(searchName: string): Promise<string> {
    const found = (await collectionOf(h.port, 'SavedSearch').list()).find((s) => s.name === searchName);
    const hook = (await collectionOf(h.port, 'Webhook').list()).find((w) => w.name === 'ops-slack');
    if (!found || !hook) throw new Error('setup');
    const alert = await collectionOf(h.port, 'Alert').create({
      source: 'saved_search',
      savedSearchId: found.id,
      name: 'Made by hand',
      threshold: 5,
      thresholdType: 'above',
      interval: '15m',
      channels: [{ type: 'webhook', webhookId: hook.id }],
    });
    return alert.id;
  }

  it('keeps the delete back, naming the alert and the way out; the owned alert on it goes', async () => {
    const handMade = await handMadeAlertOn('Search doomed');
    h.manifests({ 'keep.yaml': search('keep') + searchAlert('keep-alert', 'keep') });
    const report = await h.run({ prune: true });
    const blocked = report.plan.prune.blocked.find((b) => b.address === 'SavedSearch/doomed');
    expect(blocked?.reason).toMatch(/Alert 'Made by hand' \(id [0-9a-f]+\), which obsync does not own/);
    expect(blocked?.reason).toContain('--prune-cascade');
    expect(report.plan.steps.filter((s) => s.action === 'delete').map((s) => s.address)).toEqual(['Alert/doomed-alert']);
    expect(report.apply?.summary.failed).toBe(0);
    expect((await collectionOf(h.port, 'SavedSearch').list()).map((s) => s.name)).toContain('Search doomed');
    expect((await h.alerts()).map((a) => a.id)).toContain(handMade);
  });

  it('lets it go with --prune-cascade, backing the alert up first and counting it', async () => {
    const handMade = await handMadeAlertOn('Search doomed');
    h.manifests({ 'keep.yaml': search('keep') + searchAlert('keep-alert', 'keep') });
    const tooMany = await h.run({ prune: true, pruneCascade: true, maxDeletes: 2 });
    expect(tooMany.plan.prune.refused.join(' ')).toMatch(/3 deletes .*exceed the limit of 2/);
    const report = await h.run({ prune: true, pruneCascade: true });
    expect(report.plan.steps.find((s) => s.address === 'SavedSearch/doomed')?.cascade?.map((c) => [c.id, c.owned])).toEqual(
      expect.arrayContaining([[handMade, false]]),
    );
    expect(report.apply?.summary.failed).toBe(0);
    expect((await h.alerts()).map((a) => a.id)).not.toContain(handMade);
    expect(h.backups().some((text) => text.includes(handMade) && text.includes('Made by hand'))).toBe(true);
  });
});

describe('an owned webhook an unowned alert still uses', () => {
  beforeEach(async () => {
    h = await TrustHarness.start();
    h.manifests({ 'hooks.yaml': webhook('keep') + webhook('doomed') + search('errors') + searchAlert('owned-alert', 'errors', 'doomed') });
    expect((await h.run()).apply?.summary.failed).toBe(0);
  });

  it('is predicted in the plan and kept back (no 409 met), stays owned, and the rest of the run goes on', async () => {
    const hooks = await collectionOf(h.port, 'Webhook').list();
    const doomed = hooks.find((w) => w.name === 'Hook doomed');
    const errors = (await collectionOf(h.port, 'SavedSearch').list()).find((s) => s.name === 'Search errors');
    if (!doomed || !errors) throw new Error('setup');
    const handMade = await collectionOf(h.port, 'Alert').create({
      source: 'saved_search',
      savedSearchId: errors.id,
      name: 'Made by hand',
      threshold: 5,
      thresholdType: 'above',
      interval: '15m',
      channels: [{ type: 'webhook', webhookId: doomed.id }],
    });
    // The owned alert moves to the kept webhook; the doomed webhook leaves the manifests.
    h.manifests({ 'hooks.yaml': webhook('keep') + search('errors') + searchAlert('owned-alert', 'errors', 'keep') + webhook('new') });
    h.sandbox.clearRequests();

    const report = await h.run({ prune: true });
    const blocked = report.plan.prune.blocked.find((b) => b.address === 'Webhook/doomed');
    expect(blocked?.reason).toMatch(/refuses to delete it \(HTTP 409\) while 1 object\(s\) still use it/);
    expect(blocked?.reason).toContain(`Alert 'Made by hand' (id ${handMade.id}), which obsync does not own`);
    expect(blocked?.usedBy?.map((u) => [u.id, u.owned])).toEqual([[handMade.id, false]]);
    // The owned alert that moves away in the same run does not hold it.
    expect(blocked?.reason).not.toContain('owned-alert');
    expect(report.plan.steps.some((s) => s.address === 'Webhook/doomed')).toBe(false);
    const byAddress = new Map(report.apply?.results.map((r) => [r.address, r]));
    expect(byAddress.get('Alert/owned-alert')?.outcome).toBe('applied');
    expect(byAddress.get('Webhook/new')?.outcome).toBe('applied');
    expect(h.sandbox.requests().filter((r) => r.method === 'DELETE')).toEqual([]);
    expect(h.inventory.get('Webhook/doomed')?.status).toBe('owned');

    // Once the hand-made alert is gone, the next run deletes it.
    await collectionOf(h.port, 'Alert').delete(handMade.id);
    const again = await h.run({ prune: true });
    expect(again.plan.prune.blocked).toEqual([]);
    expect(again.apply?.results.find((r) => r.address === 'Webhook/doomed')?.outcome).toBe('applied');
    expect(h.inventory.get('Webhook/doomed')).toBeUndefined();
  });

  it('is kept back while an owned alert that stays declared still notifies it first', async () => {
    // The alert now names the webhook by its name on the service (no manifest declares it).
    h.manifests({ 'hooks.yaml': webhook('keep') + search('errors') + searchAlert('owned-alert', 'errors', "'Hook doomed'") });
    const report = await h.run({ mode: 'plan', prune: true });
    expect(report.plan.diagnostics).toEqual([]);
    const blocked = report.plan.prune.blocked.find((b) => b.address === 'Webhook/doomed');
    expect(blocked?.usedBy?.map((u) => u.address)).toEqual(['Alert/owned-alert']);
  });

  it('is deleted after the owned alerts that use it, in one run', async () => {
    h.manifests({ 'hooks.yaml': webhook('keep') + search('errors') + searchAlert('other', 'errors', 'keep') });
    const report = await h.run({ prune: true });
    expect(report.plan.steps.filter((s) => s.action === 'delete').map((s) => s.address)).toEqual(['Alert/owned-alert', 'Webhook/doomed']);
    expect(report.apply?.summary.failed).toBe(0);
    expect((await collectionOf(h.port, 'Webhook').list()).map((w) => w.name)).not.toContain('Hook doomed');
  });
});
