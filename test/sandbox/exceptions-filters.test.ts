import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { accountOf } from '../support/expected.ts';
import { startSandbox } from '../../sandbox/index.ts';
import type { ExceptionRecord, Sandbox } from '../../sandbox/index.ts';
import { ACME, byCreatedDesc, epochOf, get, ids, violations } from './client.ts';
import type { Page, ShapeB } from './client.ts';

let sandbox: Sandbox;
let acme: string;
let records: readonly ExceptionRecord[];

beforeAll(async () => {
  sandbox = await startSandbox();
  acme = accountOf(sandbox, ACME);
  records = byCreatedDesc(sandbox.store.exceptions(acme));
});
afterAll(() => sandbox.close());

const list = async (query: string): Promise<ExceptionRecord[]> => {
  const { status, body } = await get<Page<ExceptionRecord>>(sandbox, `/exceptions?size=1000&${query}`);
  expect(status).toBe(200);
  expect(body.totalElements).toBe(body.content.length);
  return body.content;
};
const rejected = async (query: string): Promise<[string, string][]> => {
  const { status, body } = await get<ShapeB>(sandbox, `/exceptions?${query}`);
  expect(status).toBe(400);
  return violations(body);
};
const where = (predicate: (r: ExceptionRecord) => boolean): string[] => ids(records.filter(predicate));
const q = encodeURIComponent;

/** The wall-clock time of an instant at a fixed offset, without a designator: 2026-03-08T01:02:03.456. */
const wallAt = (ms: number, offsetMinutes: number): string => new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 23);

describe('enum filters', () => {
  it('filters by category, by type, and by both', async () => {
    expect(ids(await list('category=TRANSACTION'))).toEqual(where((r) => r.category === 'TRANSACTION'));
    expect(ids(await list('type=ACH_NOC'))).toEqual(where((r) => r.type === 'ACH_NOC'));
    const both = await list('category=CUSTOMER&type=ACH_NOC');
    expect(both.length).toBeGreaterThan(0);
    expect(ids(both)).toEqual(where((r) => r.category === 'CUSTOMER' && r.type === 'ACH_NOC'));
  });

  it('takes status repeated or comma-separated, as an OR', async () => {
    const expected = where((r) => r.status === 'NEW' || r.status === 'REOPENED');
    expect(ids(await list('status=NEW&status=REOPENED'))).toEqual(expected);
    expect(ids(await list('status=NEW,REOPENED'))).toEqual(expected);
    expect(ids(await list('status=IN_PROGRESS'))).toEqual(where((r) => r.status === 'IN_PROGRESS'));
  });

  it('rejects unknown enum values and repeated single-valued filters', async () => {
    expect(await rejected('status=NEW,CLOSED')).toEqual([['status', 'INVALID_VALUE']]);
    expect(await rejected('category=BANK')).toEqual([['category', 'INVALID_VALUE']]);
    expect(await rejected('type=ach_return')).toEqual([['type', 'INVALID_VALUE']]);
    expect(await rejected('category=CUSTOMER&category=TRANSACTION')).toEqual([['category', 'REPEATED']]);
  });
});

describe('assignedTo', () => {
  it('selects unassigned exceptions with UNASSIGNED', async () => {
    const found = await list('assignedTo=UNASSIGNED');
    expect(found.length).toBeGreaterThan(20);
    expect(ids(found)).toEqual(where((r) => r.assignedTo === undefined));
  });

  it('ORs several ids, alone or with UNASSIGNED', async () => {
    const [first, second] = sandbox.store.assignees(acme);
    const two = await list(`assignedTo=${first!.id}&assignedTo=${second!.id}`);
    expect(ids(two)).toEqual(where((r) => r.assignedTo?.id === first!.id || r.assignedTo?.id === second!.id));
    expect(new Set(two.map((r) => r.assignedTo?.lastName))).toEqual(new Set([first!.lastName, second!.lastName]));
    const withUnassigned = await list(`assignedTo=UNASSIGNED&assignedTo=${first!.id}`);
    expect(ids(withUnassigned)).toEqual(where((r) => r.assignedTo === undefined || r.assignedTo.id === first!.id));
    expect(ids(await list(`assignedTo=${first!.id.toUpperCase()}`))).toEqual(where((r) => r.assignedTo?.id === first!.id));
  });

  it('answers nothing for an id nobody has, and 400 for a value that is neither', async () => {
    expect(await list('assignedTo=00000000-0000-4000-8000-000000000000')).toEqual([]);
    expect(await rejected('assignedTo=unassigned')).toEqual([['assignedTo', 'INVALID_FORMAT']]);
  });

  it('ANDs every filter', async () => {
    const someone = sandbox.store.assignees(acme)[2]!;
    const found = await list(`assignedTo=${someone.id}&category=TRANSACTION&status=RESOLVED,REOPENED`);
    expect(found.length).toBeGreaterThan(0);
    expect(ids(found)).toEqual(where((r) => r.assignedTo?.id === someone.id && r.category === 'TRANSACTION' && (r.status === 'RESOLVED' || r.status === 'REOPENED')));
  });
});

describe('createdDateFrom / createdDateTo', () => {
  const between = (from: number, to: number): string[] => where((r) => epochOf(r.createdAt) >= from && epochOf(r.createdAt) <= to);

  it('reads bare dates as whole UTC days by default, both bounds inclusive', async () => {
    const found = await list('createdDateFrom=2026-06-01&createdDateTo=2026-06-30');
    expect(found.length).toBeGreaterThan(10);
    expect(ids(found)).toEqual(between(Date.parse('2026-06-01T00:00:00.000Z'), Date.parse('2026-06-30T23:59:59.999Z')));
  });

  it('includes a record created exactly at either bound and excludes it one millisecond off', async () => {
    const record = records[40]!;
    const at = epochOf(record.createdAt);
    const z = (ms: number) => q(`${new Date(ms).toISOString()}`);
    expect(ids(await list(`createdDateFrom=${z(at)}&createdDateTo=${z(at)}`))).toEqual([record.id]);
    expect(ids(await list(`createdDateFrom=${z(at + 1)}`))).toEqual(ids(records.slice(0, 40)));
    expect(ids(await list(`createdDateTo=${z(at - 1)}`))).toEqual(ids(records.slice(41)));
  });

  it.each([
    ['Z', 0], ['UTC', 0], ['GMT', 0],
    ['+2', 120], ['+02', 120], ['+02:00', 120], ['UTC+2', 120], ['UTC+02:00', 120], ['GMT+2', 120], ['GMT+02:00', 120],
    ['-5', -300], ['-05:30', -330], ['UTC-05:30', -330], ['GMT-5', -300], ['+05:45', 345],
  ])('reads wall times in timeZone=%s (offset %i min)', async (timeZone, offset) => {
    const record = records[77]!;
    const local = wallAt(epochOf(record.createdAt), offset);
    expect(ids(await list(`createdDateFrom=${local}&createdDateTo=${local}&timeZone=${q(timeZone)}`))).toEqual([record.id]);
  });

  it('keeps an explicit offset in the value over timeZone', async () => {
    const record = records[12]!;
    const at = epochOf(record.createdAt);
    const plusTwo = q(`${wallAt(at, 120)}+02:00`);
    expect(ids(await list(`createdDateFrom=${plusTwo}&createdDateTo=${plusTwo}&timeZone=Asia/Tokyo`))).toEqual([record.id]);
  });

  describe('an IANA zone around a daylight-saving change', () => {
    // America/New_York springs forward at 2026-03-08T07:00:00Z (EST -5 → EDT -4).
    const change = Date.parse('2026-03-08T07:00:00Z');
    const offsetInNewYork = (ms: number): number => (ms < change ? -300 : -240);
    const near = () => {
      const before = records.filter((r) => epochOf(r.createdAt) < change).slice(0, 3);
      const after = records.filter((r) => epochOf(r.createdAt) >= change).slice(-3);
      return [...before, ...after];
    };

    it('has records on both sides of the change within a few days', () => {
      const around = near().map((r) => Math.abs(epochOf(r.createdAt) - change));
      expect(around).toHaveLength(6);
      expect(Math.max(...around)).toBeLessThan(7 * 86_400_000);
    });

    it('reads each local wall time with the offset in force at that moment', async () => {
      for (const record of near()) {
        const at = epochOf(record.createdAt);
        const local = wallAt(at, offsetInNewYork(at));
        expect(ids(await list(`createdDateFrom=${local}&createdDateTo=${local}&timeZone=America/New_York`))).toEqual([record.id]);
      }
    });

    it('makes the changeover day 23 hours long', async () => {
      const found = await list('createdDateFrom=2026-03-07&createdDateTo=2026-03-09&timeZone=America/New_York');
      expect(ids(found)).toEqual(between(Date.parse('2026-03-07T05:00:00.000Z'), Date.parse('2026-03-10T03:59:59.999Z')));
      const day = await list('createdDateFrom=2026-03-08&createdDateTo=2026-03-08&timeZone=America/New_York');
      expect(ids(day)).toEqual(between(Date.parse('2026-03-08T05:00:00.000Z'), Date.parse('2026-03-09T03:59:59.999Z')));
    });
  });

  it.each([
    ['timeZone=Mars/Olympus_Mons', 'timeZone', 'INVALID_TIME_ZONE'],
    ['timeZone=europe/berlin', 'timeZone', 'INVALID_TIME_ZONE'],
    ['timeZone=%2B19', 'timeZone', 'INVALID_TIME_ZONE'],
    ['timeZone=UTC%2B', 'timeZone', 'INVALID_TIME_ZONE'],
    // An unencoded '+' in a query string is a space: "UTC 2".
    ['timeZone=UTC+2', 'timeZone', 'INVALID_TIME_ZONE'],
    ['timeZone=', 'timeZone', 'INVALID_TIME_ZONE'],
    ['createdDateFrom=2026-02-30', 'createdDateFrom', 'INVALID_FORMAT'],
    ['createdDateTo=last-week', 'createdDateTo', 'INVALID_FORMAT'],
    ['createdDateFrom=2026-06-01T10:00:00+02:00', 'createdDateFrom', 'INVALID_FORMAT'],
  ])('rejects %s with 400 shape B', async (query, path, code) => {
    expect(await rejected(query)).toEqual([[path, code]]);
  });
});
