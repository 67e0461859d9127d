/**
 * SSRF protection for endpoint URLs (PRODUCT.md section 4: "protect against SSRF"): only http(s),
 * and no private, loopback, link-local or multicast addresses unless WEBHOOK_ALLOW_PRIVATE_URLS.
 * Checked at registration (literal IPs and DNS answers) and again when connecting (the delivery
 * agent's DNS lookup), so a name that later resolves to a private address is refused too.
 */
import dns from 'node:dns';
import net from 'node:net';

const blocked = new net.BlockList();
for (const [addr, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(addr, prefix, 'ipv4');
for (const [addr, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) blocked.addSubnet(addr, prefix, 'ipv6');

export function isPrivateAddress(ip: string): boolean {
  const family = net.isIP(ip);
  if (family === 4) return blocked.check(ip, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
    if (mapped) return blocked.check(mapped[1], 'ipv4');
    return blocked.check(ip, 'ipv6');
  }
  return false;
}

export type UrlProblem = 'protocolo' | 'privada' | 'formato';

/** Returns the problem with the URL, or undefined when it may be registered. */
export async function checkEndpointUrl(raw: string, allowPrivate: boolean): Promise<UrlProblem | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'formato';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'protocolo';
  if (allowPrivate) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'privada';
  if (net.isIP(host)) return isPrivateAddress(host) ? 'privada' : undefined;
  try {
    const answers = await dns.promises.lookup(host, { all: true });
    return answers.some((a) => isPrivateAddress(a.address)) ? 'privada' : undefined;
  } catch {
    // An unresolvable name is accepted: DNS may be temporarily down; the delivery-time check still applies.
    return undefined;
  }
}

/** dns.lookup replacement for the delivery agent: refuses private answers. */
export function guardedLookup(hostname: string, options: dns.LookupOptions, callback: (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '');
    const list = addresses as dns.LookupAddress[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad) {
      const e: NodeJS.ErrnoException = new Error(`La dirección ${bad.address} de ${hostname} es privada y no está permitida.`);
      e.code = 'EPRIVATEADDRESS';
      return callback(e, '');
    }
    if (options.all) return callback(null, list);
    callback(null, list[0].address, list[0].family);
  });
}
