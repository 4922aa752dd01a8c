// Where webhooks may go: every special-purpose address range is internal, in every spelling an
// address can take, and only global unicast receives live webhooks.
import assert from 'node:assert/strict';
import { addressAllowed, isInternalAddress, webhookUrlProblem } from '../../domain/webhook-url';

const INTERNAL = {
  'this network': ['0.0.0.0', '0.1.2.3'],
  private: ['10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.1.1'],
  'carrier-grade NAT': ['100.64.0.1', '100.127.255.254'],
  loopback: ['127.0.0.1', '127.255.0.9', '::1'],
  'link-local and cloud metadata': ['169.254.169.254', 'fe80::1', 'febf::ffff'],
  'IETF protocol assignments': ['192.0.0.8'],
  documentation: ['192.0.2.10', '198.51.100.7', '203.0.113.99', '2001:db8::1', '3fff::1'],
  benchmarking: ['198.18.0.1', '198.19.255.255', '2001:2::1'],
  multicast: ['224.0.0.1', '239.255.255.250', 'ff02::1'],
  'reserved and broadcast': ['240.0.0.1', '255.255.255.255'],
  '6to4 relay anycast': ['192.88.99.1'],
  'IPv6 unspecified': ['::'],
  'unique local': ['fc00::1', 'fd12:3456::1'],
  'IPv4-mapped': ['::ffff:10.0.0.1', '::ffff:127.0.0.1', '::ffff:169.254.169.254'],
  'IPv4-compatible': ['::127.0.0.1', '::7f00:1', '::10.0.0.1', '::2'],
  '6to4': ['2002:7f00:1::', '2002:0a00:0001::1', '2002:0808:0808::1'],
  Teredo: ['2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
  'NAT64 (RFC 6052) and IPv4-translated': ['64:ff9b::7f00:1', '64:ff9b::8.8.8.8', '64:ff9b:1::1', '::ffff:0:8.8.8.8'],
  'discard-only': ['100::1'],
  ORCHIDv2: ['2001:20::1'],
};

const PUBLIC = ['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001::1', '::ffff:8.8.8.8'];

describe('domain: webhook addresses', () => {
  for (const [range, addresses] of Object.entries(INTERNAL)) {
    it(`${range} is internal and never receives a live webhook`, () => {
      for (const address of addresses) {
        assert.equal(isInternalAddress(address), true, address);
        assert.equal(addressAllowed(address, 'live', true), false, address);
      }
    });
  }

  it('global unicast receives webhooks in both modes', () => {
    for (const address of PUBLIC) {
      assert.equal(isInternalAddress(address), false, address);
      assert.equal(addressAllowed(address, 'live', false), true, address);
      assert.equal(addressAllowed(address, 'test', false), true, address);
    }
  });

  it('loopback (in any spelling) is allowed only to test endpoints where the operator allows it', () => {
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '::127.0.0.1']) {
      assert.equal(addressAllowed(address, 'test', true), true, address);
      assert.equal(addressAllowed(address, 'test', false), false, address);
      assert.equal(addressAllowed(address, 'live', true), false, address);
    }
    assert.equal(addressAllowed('10.0.0.1', 'test', true), false, 'loopback only, not every internal address');
  });

  it('refuses a URL with a literal internal address in any spelling the URL parser accepts', () => {
    for (const url of ['https://[::127.0.0.1]/hook', 'https://[2002:7f00:1::]/hook', 'https://127.1/hook', 'https://0x7f.0.0.1/hook', 'https://2130706433/hook', 'https://[64:ff9b::a00:1]/hook']) {
      assert.equal(webhookUrlProblem(url, 'live', false), 'Must not be a loopback, private, link-local or other internal address.', url);
    }
    assert.equal(webhookUrlProblem('https://[2606:4700:4700::1111]/hook', 'live', false), null);
    assert.equal(webhookUrlProblem('https://hooks.example.com/kasi', 'live', false), null);
  });

  it('localhost and its subdomains are loopback by name, with no name server asked: refused live, allowed to test endpoints where the operator allows it', () => {
    for (const url of ['https://localhost/hook', 'https://api.localhost/hook']) {
      assert.match(webhookUrlProblem(url, 'live', true) ?? '', /loopback/);
      assert.match(webhookUrlProblem(url, 'test', false) ?? '', /loopback/);
      assert.equal(webhookUrlProblem(url, 'test', true), null);
    }
    assert.equal(webhookUrlProblem('http://localhost:4000/hook', 'test', true), null);
  });
});
