import { describe, expect, it } from 'vitest';
import { createServiceDomain } from './service.js';
import { failure, value } from './test-helpers.js';

function setup() {
  let t = new Date('2026-09-01T12:00:00.000Z').getTime();
  const d = createServiceDomain({ serviceId: 'b0000000-0000-4000-8000-000000000001', now: () => new Date(t), transitionMs: 100 });
  return { d, advance: (ms: number) => ((t += ms), d.tick()) };
}

describe('service state', () => {
  it('idles until woken: awake goes through awaking to running; awake is a no-op while running or waking', () => {
    const { d, advance } = setup();
    expect(d.blockingState()).toBeNull();
    d.idle();
    advance(60_000);
    expect(d.blockingState()).toBe('idle');
    expect(value(d.setState({ command: 'awake' })).state).toBe('awaking');
    expect(value(d.setState({ command: 'awake' })).state).toBe('awaking');
    advance(100);
    expect(d.blockingState()).toBeNull();
    expect(value(d.setState({ command: 'awake' })).state).toBe('running');
  });

  it('stop ends in stopped; awake does not start a stopped service, start does', () => {
    const { d, advance } = setup();
    expect(value(d.setState({ command: 'stop' })).state).toBe('stopping');
    advance(100);
    expect(d.blockingState()).toBe('stopped');
    expect(failure(d.setState({ command: 'awake' })).status).toBe(400);
    expect(value(d.setState({ command: 'start' })).state).toBe('starting');
    advance(100);
    expect(value(d.get()).state).toBe('running');
    expect(failure(d.setState({ command: 'reboot' })).status).toBe(400);
  });

  it('round-trips through a snapshot', () => {
    const { d } = setup();
    d.idle();
    const restored = createServiceDomain({ serviceId: 'x', snapshot: JSON.parse(JSON.stringify(d.snapshot())) as never });
    expect(restored.blockingState()).toBe('idle');
  });
});
