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

it('expands :: by the hextets after it when they reach into the network half', () => {
  expect(addressGroup('2001:db8::1:2:3:4:5')).toBe('2001:db8:0:1::/64');
});

it('counts an embedded IPv4 tail as the two hextets it stands for', () => {
  expect(addressGroup('1::2:3:4:5:6.7.8.9')).toBe('1:0:2:3::/64');
});

it('counts an IPv4-mapped address with multi-digit octets as its IPv4 address', () => {
  expect(addressGroup('::ffff:198.51.100.27')).toBe('198.51.100.27');
});

it('counts an IPv6 address that only ends like an IPv4-mapped one by its /64, not as that IPv4 address', () => {
  expect(addressGroup('2001:db8:1:2::ffff:198.51.100.27')).toBe('2001:db8:1:2::/64');
});

it('counts a bracketed IPv6 address without a port as the address', () => {
  expect(addressGroup('[2001:db8:1:2::1]')).toBe('2001:db8:1:2::/64');
});

it('counts text that merely contains an address and a port as the text it is', () => {
  const texts = ['x203.0.113.9:80', '203.0.113.9:80x', 'x[2001:db8::1]:80', '[2001:db8::1]:80x'];
  expect(texts.map(addressGroup)).toEqual(texts);
});
