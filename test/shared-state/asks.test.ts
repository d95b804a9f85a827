import { describe, expect, it, jest } from '@jest/globals';
import { Asks } from '../../src/shared-state/asks.ts';

describe('the one ask/answer channel', () => {
  it('matches answers to questions by id, in any order, and drops an answer nobody waits for', async () => {
    const asks = new Asks<string>();
    const sent: number[] = [];
    const first = asks.ask((id) => void sent.push(id), 1_000, () => 'late');
    const second = asks.ask((id) => void sent.push(id), 1_000, () => 'late');
    expect(sent).toEqual([0, 1]);
    expect(asks.answer(1, 'second')).toBe(true);
    expect(asks.answer(0, 'first')).toBe(true);
    expect(asks.answer(0, 'again')).toBe(false);
    expect(asks.answer(7, 'never asked')).toBe(false);
    await expect(Promise.all([first, second])).resolves.toEqual(['first', 'second']);
  });

  it('gives up on an answer that does not come in time, and on a question that could not be sent', async () => {
    jest.useFakeTimers();
    try {
      const asks = new Asks<string>();
      const slow = asks.ask(() => true, 500, () => 'late');
      jest.advanceTimersByTime(499);
      expect(asks.answer(0, 'in time')).toBe(true);
      await expect(slow).resolves.toBe('in time');
      const lost = asks.ask(() => true, 500, () => 'late');
      jest.advanceTimersByTime(500);
      await expect(lost).resolves.toBe('late');
      expect(asks.answer(1, 'too late')).toBe(false);
      await expect(asks.ask(() => false, 500, () => 'no channel')).resolves.toBe('no channel');
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('answers every question still waiting when the channel closes', async () => {
    const asks = new Asks<string>();
    const waiting = [asks.ask(() => true, 60_000, () => 'late'), asks.ask(() => true, 60_000, () => 'late')];
    asks.settleAll(() => 'closed');
    await expect(Promise.all(waiting)).resolves.toEqual(['closed', 'closed']);
  });
});
