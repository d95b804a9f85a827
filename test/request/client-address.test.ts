import { describe, expect, it } from '@jest/globals';
import { addressUnit } from '../../src/request/client-address.ts';

describe('the unit a per-address limit counts', () => {
  it('is an IPv4 address itself, an IPv4-mapped IPv6 address its IPv4 address', () => {
    expect([addressUnit('203.0.113.7'), addressUnit('::ffff:203.0.113.7'), addressUnit('::FFFF:198.51.100.1')]).toEqual(['203.0.113.7', '203.0.113.7', '198.51.100.1']);
  });

  it('is an IPv6 address\'s /64, however the address is written', () => {
    expect([
      addressUnit('2001:db8:0:1::1'),
      addressUnit('2001:0db8:0000:0001:ffff:ffff:ffff:fffe'),
      addressUnit('2001:DB8:0:1:abcd::%eth0'),
      addressUnit('2001:db8::1'),
      addressUnit('::1'),
      addressUnit('fe80::1:2:3:4'),
    ]).toEqual(['2001:db8:0:1::/64', '2001:db8:0:1::/64', '2001:db8:0:1::/64', '2001:db8:0:0::/64', '0:0:0:0::/64', 'fe80:0:0:0::/64']);
  });

  it('leaves what is not an address as it is', () => {
    expect([addressUnit('unknown'), addressUnit('1::2::3'), addressUnit('2001:db8:zz::1')]).toEqual(['unknown', '1::2::3', '2001:db8:zz::1']);
  });
});
