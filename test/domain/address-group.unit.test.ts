import { expect, it } from 'vitest';
import { addressGroup } from '../../src/domain/address-group.ts';

it('counts an IPv4 address on its own', () => {
  expect(addressGroup('203.0.113.9')).toBe('203.0.113.9');
});

it('counts every IPv6 address of one /64 together, however it is written', () => {
  expect(
    ['2001:db8:1:2::1', '2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2:0:0:0:0%eth0'].map(
      addressGroup,
    ),
  ).toEqual(['2001:db8:1:2::/64', '2001:db8:1:2::/64', '2001:db8:1:2::/64']);
});

it('tells neighbouring /64s apart, and expands :: in the network half', () => {
  expect(['2001:db8:1:3::1', '2001:db8::1', '::1', 'fe80::1:2:3:4'].map(addressGroup)).toEqual([
    '2001:db8:1:3::/64',
    '2001:db8:0:0::/64',
    '0:0:0:0::/64',
    'fe80:0:0:0::/64',
  ]);
});

it('counts an IPv4-mapped IPv6 address as its IPv4 address', () => {
  expect(addressGroup('::ffff:203.0.113.9')).toBe('203.0.113.9');
});

it('counts an address a proxy wrote with its port (X-Forwarded-For) as the address alone', () => {
  expect(['203.0.113.9:51234', '[2001:db8:1:2::1]:443', '[::ffff:203.0.113.9]:80'].map(addressGroup)).toEqual(
    ['203.0.113.9', '2001:db8:1:2::/64', '203.0.113.9'],
  );
});

it('counts what is not an address, with or without a port, as the text it is', () => {
  expect(['unknown', '_hidden:80', '[not-an-address]:80'].map(addressGroup)).toEqual([
    'unknown',
    '_hidden:80',
    '[not-an-address]:80',
  ]);
});
