import { describe, expect, it } from 'vitest';
import type { Backtest } from '../core/backtest.js';
import { backtestCell, backtestSentence } from './backtest.js';

const base: Backtest = {
  status: 'ok',
  window: '7d',
  evaluated: 2016,
  firing: 28,
  episodes: 5,
  firstFiringAt: '2026-11-20T14:05:00.000Z',
  lastFiringAt: '2026-11-24T03:10:00.000Z',
  notifications: 28,
  resolutions: 5,
  flapping: 2,
};

describe('the backtest in words', () => {
  it('says what would have paged: notifications, the top group, resolutions and flapping episodes', () => {
    const grouped: Backtest = {
      ...base,
      groups: 2,
      topGroups: [
        { group: 'ServiceName:checkout', notifications: 24, resolutions: 4 },
        { group: 'ServiceName:\u001b[31mapi', notifications: 4, resolutions: 1 },
      ],
    };
    const text = backtestSentence(grouped);
    expect(text).toContain(
      'would have notified 28 times, 24 of them from group ServiceName:checkout, and resolved 5 times; 2 of ' +
        '5 episodes flapped (under 3 windows)',
    );
    expect(text).toContain('top groups by notifications: ServiceName:checkout 24 (4 resolved), ServiceName:');
    // A group is the service's data: no escape sequence reaches the terminal.
    expect(text).not.toContain('\u001b');
    expect(backtestCell(grouped)).toBe('28 notification(s): 5 episode(s), 28 of 2016 windows firing');
  });

  it('compares before → after, and labels a suggested threshold as a suggestion', () => {
    const update: Backtest = {
      ...base,
      before: { status: 'ok', evaluated: 2016, firing: 4, episodes: 2, notifications: 4, resolutions: 2, flapping: 0 },
      suggestion: { threshold: 42, episodes: 2, firing: 6, notifications: 6, budget: { episodes: 3, per: '7d' }, allowed: 3 },
    };
    const text = backtestSentence(update);
    expect(text).toContain('would have notified 4 → 28 times');
    expect(text).toContain('and resolved 2 → 5 times');
    expect(text).toContain(
      'over the budget of 3 episodes per 7d: threshold 42 would have kept it within (2 episodes, 6 ' +
        'notifications) — a suggestion, not applied',
    );
    expect(backtestCell(update)).toBe('4 → 28 notification(s): 2 → 5 episodes (4 → 28 of 2016 windows firing)');
  });

  it('says nothing of notifications for a backtest saved before they were counted', () => {
    const { notifications: _n, resolutions: _r, flapping: _f, ...old } = base;
    expect(backtestSentence(old)).not.toContain('notified');
  });
});

describe('a backtest that sent nothing', () => {
  it('does not add a clause of zeros', () => {
    const quiet: Backtest = { ...base, firing: 0, episodes: 0, notifications: 0, resolutions: 0, flapping: 0, lastFiringAt: null };
    expect(backtestSentence(quiet)).toBe('backtest 7d: would have fired in 0 of 2016 windows, 0 episodes');
  });
});
