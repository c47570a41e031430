import { describe, expect, it } from 'vitest';
import { isPublicAddress, nonPublicRange } from './address-class.js';

describe('nonPublicRange', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.5', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.254', 'carrierGradeNat'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.1', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.99', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
  ])('IPv4 %s is %s', (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
  });

  it.each([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['ff02::1', 'multicast'],
    ['ff0e::1', 'multicast'],
    ['100::1', 'discard'],
    ['2001:db8::1', 'reserved'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['64:ff9b:1::a00:1', 'rfc6052'],
    ['4000::1', 'unallocated'],
  ])('IPv6 %s is %s', (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
  });

  it.each([
    ['::ffff:127.0.0.1', 'ipv4Mapped of loopback'],
    ['::ffff:7f00:1', 'ipv4Mapped of loopback'],
    ['[::ffff:127.0.0.1]', 'ipv4Mapped of loopback'],
    ['::ffff:169.254.169.254', 'ipv4Mapped of linkLocal'],
    ['::ffff:10.1.2.3', 'ipv4Mapped of private'],
    ['::ffff:0:127.0.0.1', 'rfc6145 of loopback'],
    ['64:ff9b::127.0.0.1', 'nat64 of loopback'],
    ['64:ff9b::a9fe:a9fe', 'nat64 of linkLocal'],
    ['2002:7f00:1::1', '6to4 of loopback'],
    ['2002:c0a8:101::1', '6to4 of private'],
    ['::127.0.0.1', 'ipv4Compatible'],
    ['::8.8.8.8', 'ipv4Compatible'],
  ])('IPv6 %s embedding IPv4 is %s', (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
  });

  it('not an address is invalid', () => {
    expect(nonPublicRange('localhost')).toBe('invalid');
    expect(nonPublicRange('0x7f.1')).toBe('invalid');
    expect(nonPublicRange('')).toBe('invalid');
  });

  it.each([
    '8.8.8.8',
    '93.184.216.34',
    '1.1.1.1',
    '2606:4700::1111',
    '2a00:1450:4001::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%s is public', (address) => {
    expect(nonPublicRange(address)).toBeNull();
    expect(isPublicAddress(address)).toBe(true);
  });
});
